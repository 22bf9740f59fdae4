import type { Tokenizer } from '../../tokens/tokenizer.js';
import { createSeededRandom, mixSeed } from '../../util/seeded-random.js';
import type { AnswerScript } from './answer-script.js';
import { sampleOutputLength } from './output-length.js';
import type { SimProfile } from './sim-profile.js';
import type { ReplyPlan } from './sim-request.js';

/** What a reply is planned from: the request's prompt, its cap and its seed. */
export interface ReplyRequest {
  promptIds: readonly number[];
  maxTokens: number;
  seed: number | undefined;
  /** 0 is greedy: the same prompt gives the same reply whatever the seed. */
  temperature: number;
}

export interface ReplyPlannerOptions {
  tokenizer: Tokenizer;
  outputLength: SimProfile['outputLength'];
  /** The fleet's seed: the same seed and requests give the same replies. */
  seed: number;
  answer?: AnswerScript | undefined;
}

// Words most tokenizers spell as one token (with the space before them, as mid-sentence), so a reply
// reads as words and its ids are the vocabulary's own.
const WORDS =
  ' the of and to a in is it that for on was with as he be at by this had not are but from or have an they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three'.split(
    ' ',
  );

/**
 * Decides each reply before it is generated: its length from the profile's distribution (capped by
 * max_tokens), its ids (seeded words of the tokenizer's vocabulary, then the answer script's text if
 * any, then the end-of-sequence token), and how it ends. A request with a seed gets the same reply for
 * the same prompt every time, in any order; one without takes the next of the fleet's seeded sequence.
 */
export class ReplyPlanner {
  readonly #tokenizer: Tokenizer;
  readonly #options: ReplyPlannerOptions;
  readonly #words: readonly number[];
  #unseeded = 0;

  constructor(options: ReplyPlannerOptions) {
    this.#tokenizer = options.tokenizer;
    this.#options = options;
    this.#words = vocabularyWords(options.tokenizer);
  }

  plan(request: ReplyRequest): ReplyPlan {
    const seed = this.#requestSeed(request);
    const random = createSeededRandom(seed);
    const length = sampleOutputLength(this.#options.outputLength, random);
    const answer = this.#options.answer?.({ text: this.#tokenizer.decode(request.promptIds), ids: request.promptIds }, random);
    const answerIds = answer === undefined ? [] : this.#tokenizer.encode(answer);
    const end = this.#tokenizer.stopTokenIds.slice(0, 1);
    const fillerLength = Math.max(0, length - answerIds.length - end.length);
    const filler = Array.from({ length: Math.min(fillerLength, request.maxTokens) }, () => random.pick(this.#words));
    const ids = [...filler, ...answerIds, ...end];
    if (ids.length > request.maxTokens) return { ids: ids.slice(0, request.maxTokens), finish: 'length', seed };
    return { ids, finish: 'stop', seed };
  }

  /** Greedy: the prompt's alone; seeded: the prompt's and the seed's; else the next of the fleet's sequence. */
  #requestSeed(request: ReplyRequest): number {
    const digest = promptDigest(request.promptIds);
    if (request.temperature === 0) return mixSeed(this.#options.seed, digest);
    if (request.seed === undefined) return mixSeed(this.#options.seed, digest, 1, this.#unseeded++);
    return mixSeed(this.#options.seed, digest, 2, request.seed);
  }
}

/** Ids of common words the tokenizer spells as one token (its own spelling of them), none of them a stop token. */
function vocabularyWords(tokenizer: Tokenizer): number[] {
  const stops = new Set(tokenizer.stopTokenIds);
  const single = WORDS.map((word) => tokenizer.encode(` ${word}`)).filter((ids) => ids.length === 1 && !stops.has(ids[0]!));
  const ids = single.length > 0 ? single.flat() : tokenizer.encode(WORDS.join(' ')).filter((id) => !stops.has(id));
  if (ids.length === 0) throw new RangeError('the tokenizer has no ids for plain words to fill replies with');
  return ids;
}

function promptDigest(ids: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const id of ids) hash = Math.imul(hash ^ id, 0x01000193);
  return mixSeed(hash, ids.length);
}
