import type { ToolSource } from '../tools/build-tools.js';
import type { AgentMemory } from './agent-memory.js';

/** The tool source for `config.memory`: the memory tools on the scope of the turn's conversation. */
export function memoryToolSource(memory: AgentMemory): ToolSource {
  return {
    name: 'config.memory',
    build: (config, context) => memory.tools(config, context),
  };
}
