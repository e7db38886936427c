import { Command } from 'commander';
import type { CliContext } from '../cli-context.js';
import { formatTable, printJson, printText } from '../output.js';
import { commandOptions, withJsonOption } from '../session.js';

/** One provider as `harness models` lists it: its `config.provider.<name>` key and the fields it takes. */
export interface ProviderListing {
  provider: string;
  fields: { name: string; description: string }[];
}

/**
 * The providers from the service's own registry, no HTTP needed. Imported when the command
 * runs, so the other commands do not load every provider's client.
 */
export async function providerListings(): Promise<ProviderListing[]> {
  const { providerRegistry } = await import('../../server/core/model/providers/provider-registry.js');
  return Object.entries(providerRegistry).map(([provider, definition]) => ({
    provider,
    fields: Object.entries(definition.fields).map(([name, description]) => ({ name, description })),
  }));
}

/** Lists the model providers and the fields each takes in `config.provider.<name>`. */
export async function runModels(context: CliContext, options: { json?: boolean }): Promise<void> {
  const listings = await providerListings();
  if (options.json) return printJson(context.stdout, { providers: listings });
  const rows = listings.flatMap(({ provider, fields }) => fields.map((field, index) => [index === 0 ? provider : '', field.name, field.description]));
  printText(context.stdout, formatTable(['PROVIDER', 'FIELD', 'WHAT IT IS'], rows));
  printText(context.stdout, 'Choose one with config.model = {provider, id, temperature?, reasoning?: none|low|medium|high, ...}; see docs/models.md.');
}

export function modelsCommand(context: CliContext): Command {
  return withJsonOption(
    new Command('models')
      .description('list the model providers and the fields each takes in config.provider.<name>')
      .action(async (_options: unknown, command: Command) => runModels(context, commandOptions<{ json?: boolean }>(command))),
  );
}
