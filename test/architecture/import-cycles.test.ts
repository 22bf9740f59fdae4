import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sourceImports, type SourceImport } from './source-imports.js';

/**
 * One cycle through each strongly connected group of modules (Tarjan's algorithm), as `a → b → a`:
 * a group with no cycle left is one module, so an empty list means the import graph has no cycle.
 */
function importCycles(edges: readonly Pick<SourceImport, 'from' | 'to'>[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(to)) graph.set(to, new Set());
    graph.set(from, (graph.get(from) ?? new Set()).add(to));
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const next of graph.get(module)!) {
      if (!index.has(next)) visit(next);
      if (onStack.has(next)) low.set(module, Math.min(low.get(module)!, low.get(next)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const group = new Set<string>();
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      onStack.delete(member);
      group.add(member);
      if (member === module) break;
    }
    if (group.size > 1 || graph.get(module)!.has(module)) cycles.push(cycleWithin(graph, group, [...group].sort()[0]!));
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return cycles.sort();
}

/** A shortest way from `start` back to itself inside `group` (breadth first), written `start → … → start`. */
function cycleWithin(graph: ReadonlyMap<string, ReadonlySet<string>>, group: ReadonlySet<string>, start: string): string {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const module = queue[head]!;
    for (const next of graph.get(module)!) {
      if (!group.has(next)) continue;
      if (next === start) {
        const back = [];
        for (let step = module; step !== start; step = cameFrom.get(step)!) back.push(step);
        return [start, ...back.reverse(), start].join(' → ');
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, module);
        queue.push(next);
      }
    }
  }
  return start;
}

describe('imports', () => {
  it('are reported once per cycle: modules that import each other round a loop, and a module importing itself', () => {
    const edges = [
      { from: 'a/x', to: 'a/y' },
      { from: 'a/y', to: 'a/z' },
      { from: 'a/z', to: 'a/x' },
      { from: 'b/solo', to: 'b/solo' },
      { from: 'c/leaf', to: 'a/x' },
    ];
    assert.deepEqual(importCycles(edges), ['a/x → a/y → a/z → a/x', 'b/solo → b/solo']);
  });

  it('form no cycle anywhere in src/, type imports included', () => {
    assert.deepEqual(importCycles(sourceImports()), []);
  });
});
