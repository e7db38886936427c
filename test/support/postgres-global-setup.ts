import { startTestPostgres, testPostgresUrlVariable } from './test-postgres.js';

/**
 * Vitest global setup when the run is on PostgreSQL (`HARNESS_TEST_STORAGE=postgres`): one
 * server for the whole run, its test database's URL handed to the test workers (and the
 * services they start) through the environment; stopped and removed when the run ends.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const { server, url } = await startTestPostgres();
  process.env[testPostgresUrlVariable] = url;
  return async () => {
    delete process.env[testPostgresUrlVariable];
    await server.stop();
  };
}
