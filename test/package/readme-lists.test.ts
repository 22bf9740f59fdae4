import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { FailureClass } from '../../src/core/index.js';
import { exampleServers } from '../../src/servers/resources/examples/example-servers.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const classes = FailureClass.options;

/**
 * Every list in the README of four or more failure classes (`a, b, c, d` or `a | b | c | d`, with or
 * without backticks, over line breaks), as the names it holds. Fewer is prose about some of them.
 */
function failureClassLists(): string[][] {
  const name = `\`?(?:${classes.join('|')})\`?`;
  const list = new RegExp(`${name}(?:\\s*[,|]\\s*${name}){3,}`, 'g');
  return [...readme.matchAll(list)].map(([found]) => found.split(/[,|]/).map((entry) => entry.trim().replaceAll('`', '')));
}

describe("the README's lists are the code's", () => {
  it('names every failure class wherever it lists them', () => {
    const lists = failureClassLists();
    assert.ok(lists.length >= 3, `the README lists the failure classes in three places at least, found ${lists.length}`);
    for (const list of lists) assert.deepEqual([...list].sort(), [...classes].sort(), `a list of failure classes in README.md: ${list.join(', ')}`);
  });

  it('names every ported NeMo Gym example in the `serve resources` row of the commands table', () => {
    const row = readme.split('\n').find((line) => line.startsWith('| `gymnast serve resources '));
    assert.ok(row, 'the commands table has a `gymnast serve resources` row');
    // The row's one-word code spans are the examples (the command's own span holds spaces).
    const named = [...row.matchAll(/`([a-z_]+)`/g)].map(([, example]) => example!);
    assert.deepEqual(named.sort(), Object.keys(exampleServers).sort());
  });
});
