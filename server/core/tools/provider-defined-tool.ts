import type { ToolSet } from 'ai';
import { type ProviderDefinedToolName, providerToolMissing } from '../model/provider-tools.js';
import type { ToolFactory } from './tool-factory.js';

/**
 * The factory of a provider-defined tool: the agent's provider's own definition of it (no
 * local `execute`; the provider runs it), or a 400 naming `config.tools.<name>` when that
 * provider has none. The config is checked when written too; this covers agents stored before.
 */
export function providerDefinedToolFactory(name: ProviderDefinedToolName): ToolFactory {
  return (_toolConfig, context) => {
    const build = context.providerTools[name];
    if (!build) throw providerToolMissing(name, context.providerName);
    // A provider tool's schema types are its package's own; a ToolSet entry is what streamText takes.
    return { [name]: build() as unknown as ToolSet[string] };
  };
}
