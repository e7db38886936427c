import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-error.js';
import { printableDatabaseUrl, readReplicaInputs } from './replica-inputs.js';

describe('replica inputs', () => {
  it('default to one replica on lowdb', () => {
    expect(readReplicaInputs({})).toEqual({ replicas: 1, databaseUrl: null });
  });

  it('take HARNESS_REPLICAS, the --replicas override before it, and the database URL without its password', () => {
    const environment = { HARNESS_REPLICAS: '3', HARNESS_DATABASE_URL: 'postgres://svc:s3cret-pw@db.example:5432/harness?sslmode=require&password=also-secret' };
    const inputs = readReplicaInputs(environment);
    expect(inputs).toEqual({ replicas: 3, databaseUrl: 'postgres://svc@db.example:5432/harness?sslmode=require' });
    expect(JSON.stringify(inputs)).not.toMatch(/s3cret-pw|also-secret/);
    expect(readReplicaInputs(environment, { replicas: 2 }).replicas).toBe(2);
  });

  it('refuse more than one replica without a database: lowdb files belong to one process', () => {
    expect(() => readReplicaInputs({ HARNESS_REPLICAS: '2' })).toThrow(UsageError);
    expect(() => readReplicaInputs({}, { replicas: 2 })).toThrow('2 replicas need a shared PostgreSQL database: pass --database-url (or set HARNESS_DATABASE_URL)');
  });

  it.each([
    [{ HARNESS_REPLICAS: '0' }, /HARNESS_REPLICAS must be a whole number from 1 to 32/],
    [{ HARNESS_REPLICAS: 'two' }, /HARNESS_REPLICAS must be a whole number/],
    [{ HARNESS_DATABASE_URL: 'mysql://db/harness' }, /must start with postgres:\/\/ or postgresql:\/\//],
    [{ HARNESS_DATABASE_URL: 'not a url' }, /HARNESS_DATABASE_URL is not a valid URL/],
  ])('names the variable of a bad value (%j)', (environment, message) => {
    expect(() => readReplicaInputs(environment)).toThrow(message);
  });

  it('prints postgresql:// URLs without a password too', () => {
    expect(printableDatabaseUrl('postgresql://harness:pw@127.0.0.1:5433/db')).toBe('postgresql://harness@127.0.0.1:5433/db');
  });
});
