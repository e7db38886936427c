import { integerSettingGroup } from '../integer-setting.js';

/** The operator's bounds on agents' memory notes (`HARNESS_MEMORY_*`), the same for every account. */
export interface MemorySettings {
  /** `HARNESS_MEMORY_MAX_NOTES` (default 200): notes one scope may hold; `memory_save` past it is refused. */
  maxNotesPerScope: number;
  /** `HARNESS_MEMORY_MAX_NOTE_CHARACTERS` (default 4000): characters of one note's text. */
  maxNoteCharacters: number;
  /** `HARNESS_MEMORY_MAX_SCOPE_CHARACTERS` (default 200000): characters of all of one scope's notes together (titles and texts). */
  maxScopeCharacters: number;
  /** `HARNESS_MEMORY_RECALL_TOKENS` (default 1000): estimated tokens of notes given to the model with each turn; 0 gives none. */
  recallTokens: number;
  /** `HARNESS_MEMORY_SEARCH_RESULTS` (default 10): notes one `memory_search` answers at most. */
  maxSearchResults: number;
}

/** Each setting's variable, default and range, written once. */
const memorySettingTable = integerSettingGroup({
  maxNotesPerScope: ['HARNESS_MEMORY_MAX_NOTES', 200, 1, 100_000],
  maxNoteCharacters: ['HARNESS_MEMORY_MAX_NOTE_CHARACTERS', 4000, 1, 1_000_000],
  maxScopeCharacters: ['HARNESS_MEMORY_MAX_SCOPE_CHARACTERS', 200_000, 1, 100_000_000],
  recallTokens: ['HARNESS_MEMORY_RECALL_TOKENS', 1000, 0, 1_000_000],
  maxSearchResults: ['HARNESS_MEMORY_SEARCH_RESULTS', 10, 1, 1000],
});

export const defaultMemorySettings: MemorySettings = memorySettingTable.defaults;

/** Reads the variables over the defaults; a bad value is a start error naming the variable. */
export function memorySettingsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): MemorySettings {
  return memorySettingTable.settings(environment);
}
