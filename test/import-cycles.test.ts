import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No module imports itself through others, type-only imports included: a circle means two
 * concepts each need the other, so one of them sits in the wrong place (the agent config's
 * section schemas once went round through `sandbox/` and back to `agents/`). A lazy
 * `await import()` is not counted: it loads a heavy part (Ink) only when it is used.
 */

const root = path.resolve(import.meta.dirname, '..');
const folders = ['server', 'cli', 'mock-worker', 'fixtures', 'scripts'];

function sourceFiles(folder: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) files.push(full);
  }
  return files;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '');
  return ['.ts', '.tsx', '/index.ts'].map((ending) => base + ending).find((candidate) => existsSync(candidate));
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sourceFiles(path.join(root, folder)))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const specifiers = source.statements.flatMap((statement) =>
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? [statement.moduleSpecifier.text] : [],
    );
    graph.set(file, specifiers.map((specifier) => resolveImport(file, specifier)).filter((target): target is string => target !== undefined));
  }
  return graph;
}

/** Every circle as the files on it, found by a depth-first walk. */
function circles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    trail.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') found.push(trail.slice(trail.indexOf(target)).map((step) => path.relative(root, step)));
      else if (!state.has(target)) visit(target);
    }
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('the import graph', () => {
  it('has no circles', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph)).toEqual([]);
  });
});
