import { LRUCache } from 'lru-cache';
import type { ChatTool } from '../core/chat-tool.js';
import { TokenAlignmentError } from '../core/errors/token-alignment-error.js';
import type { Message } from '../core/message.js';
import { TemplateError } from '../core/errors/template-error.js';
import type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';
import type { TokenLedger } from './token-ledger.js';
import type { Tokenizer } from './tokenizer.js';

export interface RenderDeltaOptions {
  /** End the last message's tokens with the generation prompt (the episode goes on). */
  addGenerationPrompt: boolean;
  tools?: readonly ChatTool[];
}

/** The chat template (or the server, rendering it) would give a different sequence from the tokens on the ledger. */
export interface TokenDrift {
  /** `template`: found while rendering locally; `server`: a server reported a different prompt. */
  source: 'template' | 'server';
  /** Where the two first differ: in characters of the decoded sequence (`template`) or in tokens (`server`). */
  at: number;
  /** What the ledger holds there, and what the template or server has instead. */
  ledger: string;
  template: string;
}

export interface RenderedDelta {
  /** Tokens for each added message, in order; they go after the ledger's tokens, which never change. */
  tokenIds: number[][];
  /** Set when the template disagrees with the ledger (only in `warn` mode; `strict` throws). */
  drift?: TokenDrift;
}

/** Turns non-assistant messages into tokens appended after what the episode already holds. */
export interface ConversationRenderer {
  readonly tokenizer: Tokenizer;
  /** How drift is handled, here and where a server reports the prompt it rendered. */
  readonly driftMode: DriftMode;
  renderDelta(ledger: TokenLedger, history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): RenderedDelta;
}

/**
 * `strict`: a drift fails the episode with `TokenAlignmentError`.
 * `warn` (default): the drift is recorded and the episode goes on. The sequence stays exact either way,
 * since sampled tokens are never replaced; a drift only means a fresh render of the conversation would differ.
 */
export type DriftMode = 'strict' | 'warn';

/**
 * Renders added messages as the text the chat template puts after the ledger's text, then encodes it.
 * The template renders the whole conversation with the new messages, and the ledger must be a prefix:
 * - it is in the usual case, and the text between the two (the `\n` after a sampled `<|im_end|>`, or the
 *   whole closing of a turn cut by a stop string) is bridged with tokens the model never sampled;
 * - it is not when the template rewrites earlier turns (stripping `<think>` once a new user turn
 *   arrives, normalizing text): that is a drift.
 * The history is never rendered on its own: templates render a final assistant turn differently
 * (Qwen3 adds an empty `<think>` block) from one with messages after it.
 */
export class TemplateRenderer implements ConversationRenderer {
  readonly tokenizer: Tokenizer;
  readonly driftMode: DriftMode;
  readonly #template: ChatTemplate;
  /**
   * Openings rendered and encoded, by their messages and options: every repeat of a task (and every
   * task sharing a prompt) opens the same way, and the opening is the longest text an episode encodes.
   */
  readonly #openings = new LRUCache<string, readonly (readonly number[])[]>({ max: 256 });

  constructor(tokenizer: Tokenizer, template: ChatTemplate, options: { drift?: DriftMode } = {}) {
    this.tokenizer = tokenizer;
    this.#template = template;
    this.driftMode = options.drift ?? 'warn';
  }

  renderDelta(ledger: TokenLedger, history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): RenderedDelta {
    if (history.length === 0 && ledger.length === 0) return this.#renderOpening(ledger, added, options);
    return this.#renderAfter(ledger, history, added, options);
  }

  /** An opening's tokens depend on nothing but its messages and options, so they are rendered once per distinct opening. */
  #renderOpening(ledger: TokenLedger, added: readonly Message[], options: RenderDeltaOptions): RenderedDelta {
    const key = JSON.stringify([added, options.addGenerationPrompt, options.tools ?? null]);
    // Every caller gets the same arrays, frozen: an opening's ids are never changed once on a sequence,
    // and a copy per episode would hold the longest part of every sequence in flight twice (issue 26).
    const cached = this.#openings.get(key);
    if (cached) return { tokenIds: cached as number[][] };
    const rendered = this.#renderAfter(ledger, [], added, options);
    const frozen = rendered.tokenIds.map((ids) => Object.freeze(ids));
    this.#openings.set(key, frozen);
    return { ...rendered, tokenIds: frozen as number[][] };
  }

  #renderAfter(ledger: TokenLedger, history: readonly Message[], added: readonly Message[], options: RenderDeltaOptions): RenderedDelta {
    const tools = options.tools ? { tools: options.tools } : {};
    const renders = added.map((_, i) =>
      this.#render([...history, ...added.slice(0, i + 1)], { addGenerationPrompt: i === added.length - 1 && options.addGenerationPrompt, ...tools }),
    );
    if (renders.length === 0) return { tokenIds: [] };
    const full = renders.at(-1)!;
    const { start, drift } = this.#align(ledger.text, full, history, added);
    // Each message ends where its own render stops agreeing with the full one: templates that group
    // messages (Qwen3 puts consecutive tool responses in one user block) close the group only once.
    let from = start;
    const tokenIds = renders.map((rendered, i) => {
      const to = i === renders.length - 1 ? full.length : Math.max(from, commonPrefixLength(rendered, full));
      const ids = this.tokenizer.encode(full.slice(from, to));
      from = to;
      return ids;
    });
    return drift ? { tokenIds, drift } : { tokenIds };
  }

  /** The template's text; a template that refuses the conversation fails this episode (TemplateError), not the run. */
  #render(messages: readonly Message[], options: ChatTemplateOptions): string {
    try {
      return this.#template.render(messages, options);
    } catch (error) {
      throw new TemplateError(`the chat template refused the conversation: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Where in `rendered` the new text starts, and the drift if the ledger is not a prefix of it. */
  #align(sequence: string, rendered: string, history: readonly Message[], added: readonly Message[]): { start: number; drift?: TokenDrift } {
    if (rendered.startsWith(sequence)) return { start: sequence.length };
    const at = commonPrefixLength(sequence, rendered);
    const drift: TokenDrift = { source: 'template', at, ledger: sequence.slice(at, at + 40), template: rendered.slice(at, at + 40) };
    if (this.driftMode === 'strict') {
      throw new TokenAlignmentError(
        `the chat template would change tokens already on the sequence at character ${at}: the sequence has ${JSON.stringify(drift.ledger)}, the template gives ${JSON.stringify(drift.template)}`,
      );
    }
    return { start: endOfLastTurn(sequence, rendered, history, added) ?? at, drift };
  }
}

/**
 * Where the last turn ends in `rendered`, past whatever of its closing the sequence already holds
 * (a sampled `<|im_end|>`): the new text follows. Templates that strip reasoning render only what
 * follows `</think>`, so that part of the content is searched too.
 */
function endOfLastTurn(sequence: string, rendered: string, history: readonly Message[], added: readonly Message[]): number | undefined {
  const content = history.at(-1)?.content ?? '';
  const visible = content.split('</think>').at(-1)!.trimStart();
  // The last turn ends before the first new message begins: an observation quoting the answer must not be taken for it.
  const firstAdded = added[0]?.content ?? '';
  const addedAt = firstAdded === '' ? -1 : rendered.lastIndexOf(firstAdded);
  const before = addedAt < 0 ? rendered : rendered.slice(0, addedAt);
  for (const candidate of [content, visible]) {
    const inRendered = candidate === '' ? -1 : before.lastIndexOf(candidate);
    const inSequence = candidate === '' ? -1 : sequence.lastIndexOf(candidate);
    if (inRendered < 0 || inSequence < 0) continue;
    const end = inRendered + candidate.length;
    const sampledClosing = sequence.slice(inSequence + candidate.length);
    return rendered.startsWith(sampledClosing, end) ? end + sampledClosing.length : end;
  }
  return undefined;
}

function commonPrefixLength(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}
