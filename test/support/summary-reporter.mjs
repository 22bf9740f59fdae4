import { relative } from 'node:path';
import { inspect } from 'node:util';

/*
 * `npm test`'s reporter (package.json): node:test's spec reporter printed ~5,500 lines for a suite that
 * passed. This one prints a dot a passing test; each failure in full as it comes (where, its suites, the
 * error with its diff and stack); then what each failing file printed; then one line of counts and time,
 * and every skipped test or suite, grouped by the reason it gave (a missing Chromium, say).
 * JavaScript, not TypeScript: Node 20 loads a reporter before `--import tsx` registers its loader.
 */

const LINE_WIDTH = 80;
/** node:test's own totals, the diagnostics it sends last (those of tests carry their file). */
const TOTAL = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/;

class Run {
  files = new Set();
  failedFiles = new Set();
  /** @type {{ where: string, reason: string, suite: boolean }[]} */
  skips = [];
  /** @type {Map<string, number>} */
  totals = new Map();
  /** Per file, the names of the tests that enclose the one running, by nesting level. */
  #enclosing = new Map();
  /** Per file, what it printed (stdout, stderr, diagnostics of its tests), shown only if it fails. */
  #printed = new Map();
  #column = 0;

  started(data) {
    if (data.file === undefined) return;
    this.files.add(data.file);
    const names = this.#enclosing.get(data.file) ?? [];
    names.length = data.nesting;
    names[data.nesting] = data.name;
    this.#enclosing.set(data.file, names);
  }

  printed(file, text) {
    if (file === undefined) return;
    this.#printed.set(file, [...(this.#printed.get(file) ?? []), text]);
  }

  diagnostic(data) {
    const total = data.file === undefined && data.nesting === 0 ? TOTAL.exec(data.message) : null;
    if (total) this.totals.set(total[1], Number(total[2]));
    else this.printed(data.file, `# ${data.message}\n`);
  }

  /** A dot for a test that passed, an `s` for a skipped test or suite; a suite that passed prints nothing. */
  passed(data) {
    const suite = data.details.type === 'suite';
    if (data.skip !== undefined && data.skip !== false) {
      this.skips.push({ where: this.#where(data), reason: data.skip === true ? 'no reason given' : data.skip, suite });
      return this.#mark('s');
    }
    return suite ? '' : this.#mark('.');
  }

  /** The failure in full, but for a suite that failed only because a test in it did: that test is shown. */
  failed(data) {
    const error = data.details.error;
    if (error.failureType === 'subtestsFailed') return '';
    if (data.file !== undefined) this.failedFiles.add(data.file);
    const header = `${this.#column > 0 ? '\n' : ''}\n✖ ${this.#where(data)} (${Math.round(data.details.duration_ms)} ms)\n`;
    this.#column = 0;
    return `${header}${indent(explained(error))}\n`;
  }

  summary() {
    const count = (name) => this.totals.get(name) ?? 0;
    const outcome = count('fail') + count('cancelled') > 0 ? '✖' : '✔';
    const counts = `${count('pass')} passed, ${count('fail')} failed, ${count('cancelled')} cancelled, ${count('skipped')} skipped, ${count('todo')} todo`;
    const line = `${outcome} ${count('tests')} tests in ${this.files.size} files: ${counts} (${(count('duration_ms') / 1000).toFixed(1)} s)`;
    return `${this.#column > 0 ? '\n' : ''}${this.#printedByFailures()}\n${line}\n${this.#skipped()}`;
  }

  /** What each failing file printed, after all the failures. */
  #printedByFailures() {
    return [...this.failedFiles]
      .filter((file) => this.#printed.has(file))
      .map((file) => `\n── printed by ${shown(file)} ──\n${this.#printed.get(file).join('')}`)
      .join('');
  }

  /** One line per reason a skip gave, then what it skipped, one a line. */
  #skipped() {
    const byReason = new Map();
    for (const skip of this.skips) byReason.set(skip.reason, [...(byReason.get(skip.reason) ?? []), skip]);
    return [...byReason].map(([reason, skips]) => `skipped ${counted(skips)}: ${reason}\n${skips.map((skip) => `  ${skip.where}\n`).join('')}`).join('');
  }

  #mark(mark) {
    this.#column = (this.#column + 1) % LINE_WIDTH;
    return this.#column === 0 ? `${mark}\n` : mark;
  }

  /**
   * `file › suite › test`; a file that failed as a whole is named once. No line: node:test takes it from
   * the code tsx compiled, not from the source (a failure's stack has the source's).
   */
  #where(data) {
    if (data.file === undefined) return data.name;
    if (data.name === data.file) return `${shown(data.file)} (the file)`;
    const enclosing = (this.#enclosing.get(data.file) ?? []).slice(0, data.nesting);
    return [shown(data.file), ...enclosing, data.name].join(' › ');
  }
}

/** The error a test failed with, with its diff and stack; a file's own failure is its process's exit. */
function explained(error) {
  // A test cancelled with its file (a timeout, a crash) has no stack worth reading: the file's failure says why.
  if (error.failureType === 'cancelledByParent') return error.message;
  if (error.exitCode !== undefined) return `its process exited with ${error.signal ? `signal ${error.signal}` : `code ${error.exitCode}`}`;
  return inspect(error.cause instanceof Error ? error.cause : error, { depth: 6 });
}

const shown = (file) => relative(process.cwd(), file);
const indent = (text) => text.replace(/^/gm, '  ');
const plural = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** `2 suites and 1 test`. */
function counted(skips) {
  const suites = skips.filter((skip) => skip.suite).length;
  const tests = skips.length - suites;
  return [suites > 0 ? plural(suites, 'suite') : '', tests > 0 ? plural(tests, 'test') : ''].filter(Boolean).join(' and ');
}

/** @param {AsyncIterable<{ type: string, data: any }>} source node:test's events */
export default async function* summaryReporter(source) {
  const run = new Run();
  for await (const event of source) {
    if (event.type === 'test:start') run.started(event.data);
    else if (event.type === 'test:stdout' || event.type === 'test:stderr') run.printed(event.data.file, event.data.message);
    else if (event.type === 'test:diagnostic') run.diagnostic(event.data);
    else if (event.type === 'test:pass') yield run.passed(event.data);
    else if (event.type === 'test:fail') yield run.failed(event.data);
  }
  yield run.summary();
}
