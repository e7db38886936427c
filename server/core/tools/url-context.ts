import { providerDefinedToolFactory } from './provider-defined-tool.js';

/** `urlContext`: Google's `urlContext`, the model reads the pages at URLs in the conversation; Google fetches them, not this service. */
export const urlContextFactory = providerDefinedToolFactory('urlContext');
