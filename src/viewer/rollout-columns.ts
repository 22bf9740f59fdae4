/** Which file of a run a rollout is in. */
export type RunFileKind = 'output' | 'failures';
export const RUN_FILE_KINDS: readonly RunFileKind[] = ['output', 'failures'];

/** What the index keeps of one rollout: only what lists, filters and the overview need. */
export interface IndexedRollout {
  file: RunFileKind;
  offset: number;
  length: number;
  /** 1-based line number in its file (for errors). */
  line: number;
  task: number;
  rollout: number;
  agent: string;
  /** NaN for a failure: it has no reward. */
  reward: number;
  termination: string;
  failureClass: string | null;
  turns: number;
  tokens: number;
  drift: number;
  /** Turns whose server-rendered prompt came back without its ids: not checked for drift. */
  driftUnchecked: number;
  /** A success of a text-only policy: scored, never trained on. */
  evaluationOnly: boolean;
  /** NaN when the row did not record it. */
  durationMs: number;
  /** `started_at` (epoch ms); NaN when the row did not record it. */
  startedAt: number;
}

type Typed = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** A typed array that doubles as it fills. */
class Column<T extends Typed> {
  values: T;
  readonly #make: (size: number) => T;

  constructor(make: (size: number) => T) {
    this.#make = make;
    this.values = make(1024);
  }

  set(index: number, value: number): void {
    if (index >= this.values.length) {
      const grown = this.#make(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[index] = value;
  }
}

/** Strings seen few times over (agents, termination kinds, failure classes), each kept once and referred to by number. */
class StringTable {
  readonly names: string[] = [];
  readonly #ids = new Map<string, number>();

  id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.names.push(name) - 1;
      this.#ids.set(name, id);
    }
    return id;
  }

  find(name: string): number | undefined {
    return this.#ids.get(name);
  }
}

const NONE = 0xffff;

/**
 * The rollouts of a run as columns: about 73 bytes a rollout and no strings per row, so a run of
 * millions of rollouts indexes without holding the garbage collector up. Positions are insertion order.
 */
export class RolloutColumns {
  length = 0;
  readonly offset = new Column((n) => new Float64Array(n));
  readonly bytes = new Column((n) => new Uint32Array(n));
  readonly line = new Column((n) => new Uint32Array(n));
  readonly file = new Column((n) => new Uint8Array(n));
  /** The rollout's index among the indexed rollouts of its file: with `file`, its stable id. */
  readonly ordinal = new Column((n) => new Uint32Array(n));
  readonly task = new Column((n) => new Uint32Array(n));
  readonly rollout = new Column((n) => new Uint32Array(n));
  readonly agent = new Column((n) => new Uint16Array(n));
  readonly reward = new Column((n) => new Float64Array(n));
  readonly termination = new Column((n) => new Uint16Array(n));
  readonly failureClass = new Column((n) => new Uint16Array(n));
  readonly turns = new Column((n) => new Uint32Array(n));
  readonly tokens = new Column((n) => new Uint32Array(n));
  readonly drift = new Column((n) => new Uint32Array(n));
  readonly driftUnchecked = new Column((n) => new Uint32Array(n));
  readonly evaluationOnly = new Column((n) => new Uint8Array(n));
  readonly duration = new Column((n) => new Float64Array(n));
  readonly startedAt = new Column((n) => new Float64Array(n));
  readonly agents = new StringTable();
  readonly terminations = new StringTable();
  readonly failureClasses = new StringTable();
  /** Positions by file and ordinal, to find a rollout by its id. */
  readonly #byFile = RUN_FILE_KINDS.map(() => new Column((n) => new Uint32Array(n)));
  readonly #perFile = RUN_FILE_KINDS.map(() => 0);

  add(facts: IndexedRollout): number {
    const at = this.length++;
    const file = RUN_FILE_KINDS.indexOf(facts.file);
    const ordinal = this.#perFile[file]!++;
    this.#byFile[file]!.set(ordinal, at);
    this.offset.set(at, facts.offset);
    this.bytes.set(at, facts.length);
    this.line.set(at, facts.line);
    this.file.set(at, file);
    this.ordinal.set(at, ordinal);
    this.task.set(at, facts.task);
    this.rollout.set(at, facts.rollout);
    this.agent.set(at, this.agents.id(facts.agent));
    this.reward.set(at, facts.reward);
    this.termination.set(at, this.terminations.id(facts.termination));
    this.failureClass.set(at, facts.failureClass === null ? NONE : this.failureClasses.id(facts.failureClass));
    this.turns.set(at, facts.turns);
    this.tokens.set(at, facts.tokens);
    this.drift.set(at, facts.drift);
    this.driftUnchecked.set(at, facts.driftUnchecked);
    this.evaluationOnly.set(at, facts.evaluationOnly ? 1 : 0);
    this.duration.set(at, facts.durationMs);
    this.startedAt.set(at, facts.startedAt);
    return at;
  }

  /** Rollouts in one file so far. */
  count(file: RunFileKind): number {
    return this.#perFile[RUN_FILE_KINDS.indexOf(file)]!;
  }

  isFailure(at: number): boolean {
    return this.file.values[at] === 1;
  }

  fileOf(at: number): RunFileKind {
    return RUN_FILE_KINDS[this.file.values[at]!]!;
  }

  agentOf(at: number): string {
    return this.agents.names[this.agent.values[at]!]!;
  }

  failureClassOf(at: number): string | null {
    const id = this.failureClass.values[at]!;
    return id === NONE ? null : this.failureClasses.names[id]!;
  }

  /** `o12` is the 13th rollout of the output file, `f0` the first of the failures. */
  idOf(at: number): string {
    return `${this.isFailure(at) ? 'f' : 'o'}${this.ordinal.values[at]}`;
  }

  /** The position of a rollout id, or undefined when there is none. */
  find(id: string): number | undefined {
    const match = /^([of])(\d{1,10})$/.exec(id);
    if (!match) return undefined;
    const file = match[1] === 'o' ? 0 : 1;
    const ordinal = Number(match[2]);
    return ordinal < this.#perFile[file]! ? this.#byFile[file]!.values[ordinal] : undefined;
  }
}
