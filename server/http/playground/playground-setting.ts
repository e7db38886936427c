import { booleanSetting } from '../../runtime-settings.js';

/**
 * `HARNESS_PLAYGROUND` (on/off, true/false...): whether the agent service serves the web
 * playground at `/playground`. On by default only for the `local` stage (what `npm start`
 * runs), so a deployed stage never exposes a page nobody asked for.
 */
export function playgroundEnabled(stage: string, environment: NodeJS.ProcessEnv = process.env): boolean {
  return booleanSetting('HARNESS_PLAYGROUND', environment.HARNESS_PLAYGROUND, stage === 'local');
}
