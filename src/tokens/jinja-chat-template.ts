import { Template } from '@huggingface/jinja';
import type { ChatTool } from '../core/chat-tool.js';
import { ConfigError } from '../core/errors/config-error.js';
import type { Message } from '../core/message.js';
import type { ChatTemplate, ChatTemplateOptions } from './chat-template.js';
import { tryCompileTemplate } from './jinja/compile-template.fast.js';
import { compilerMatchesInterpreter } from './jinja/compiler-probe.fast.js';
import { InterpreterFallbacks, notCompiledReason, renderFailedReason, type FallbackReason } from './jinja/interpreter-fallbacks.fast.js';
import type { TokenizerConfig } from './tokenizer-config.js';
import { selectChatTemplate } from './tokenizer-config.js';

export interface JinjaChatTemplateOptions {
  /** Extra template variables, like `enable_thinking` (vLLM's `chat_template_kwargs`). */
  kwargs?: Record<string, unknown>;
  /**
   * How roles the template does not know are rendered. Environment observations are shown to the
   * model as user turns by default, since chat templates know only system/user/assistant/tool.
   */
  roleMap?: Partial<Record<Message['role'], string>>;
}

/** Why templates are not compiled when the compiler does not reproduce the installed library (said once on stderr). */
const COMPILER_OFF = 'the chat template compiler is off: it does not reproduce the @huggingface/jinja installed';

/** A model's own Jinja chat template, rendered as transformers' `apply_chat_template` does. */
export class JinjaChatTemplate implements ChatTemplate {
  readonly #template: Template;
  /** The same template compiled to closures (docs/fast-paths.md#chat-template-compiler), or why the interpreter renders it. */
  readonly #compilation: { render: (variables: Record<string, unknown>) => string } | { render: undefined; reason: FallbackReason };
  readonly #fallbacks = new InterpreterFallbacks();
  readonly #specialTokens: Record<string, string>;
  readonly #kwargs: Record<string, unknown>;
  readonly #roleMap: Partial<Record<Message['role'], string>>;

  constructor(source: string, config: Pick<TokenizerConfig, 'bos_token' | 'eos_token' | 'pad_token' | 'unk_token'>, options: JinjaChatTemplateOptions = {}) {
    this.#template = new Template(source);
    this.#specialTokens = Object.fromEntries((['bos_token', 'eos_token', 'pad_token', 'unk_token'] as const).map((key) => [key, config[key] ?? '']));
    this.#kwargs = options.kwargs ?? {};
    this.#roleMap = { environment: 'user', ...options.roleMap };
    // The special tokens and default kwargs are bound once; a render brings only its own variables.
    const compilation = compilerMatchesInterpreter() ? tryCompileTemplate(this.#template) : { compiled: undefined, reason: COMPILER_OFF };
    this.#compilation = compilation.compiled
      ? { render: compilation.compiled.withShared({ ...this.#specialTokens, ...this.#kwargs }) }
      : { render: undefined, reason: notCompiledReason(compilation.reason) };
  }

  /** The template of a tokenizer config; a config without one is a configuration error. */
  static fromConfig(config: TokenizerConfig, options: JinjaChatTemplateOptions & { name?: string } = {}): JinjaChatTemplate {
    const source = selectChatTemplate(config, options.name);
    if (source === undefined) throw new ConfigError(`the tokenizer config has no chat template${options.name ? ` named ${options.name}` : ''}`);
    return new JinjaChatTemplate(source, config, options);
  }

  render(messages: readonly Message[], options: ChatTemplateOptions): string {
    // The render's own kwargs override the template's defaults, as a request's do vLLM's `--default-chat-template-kwargs`.
    const own = {
      ...options.kwargs,
      messages: messages.map((message) => this.#templateMessage(message)),
      ...(options.tools && options.tools.length > 0 ? { tools: options.tools as ChatTool[] } : {}),
      add_generation_prompt: options.addGenerationPrompt,
    };
    const compilation = this.#compilation;
    if (!compilation.render) {
      this.#fallbacks.record(compilation.reason);
      return this.#template.render(this.#variables(own));
    }
    try {
      return compilation.render(own);
    } catch (error) {
      // A value the compiled template does not reproduce, or an error the template raises: the
      // interpreter renders the same conversation, so its text or its own error is what callers see.
      this.#fallbacks.record(renderFailedReason(error));
      return this.#template.render(this.#variables(own));
    }
  }

  /** Every variable of a render, as the interpreter takes them: the shared ones, then the render's own. */
  #variables(own: Record<string, unknown>): Record<string, unknown> {
    return { ...this.#specialTokens, ...this.#kwargs, ...own };
  }

  /** How many renders the interpreter did instead of the compiled template, and why the first one did. */
  get interpreterFallbacks(): { count: number; first: FallbackReason | undefined } {
    return { count: this.#fallbacks.count, first: this.#fallbacks.first };
  }

  /** Only the fields templates read: token fields stay out, tool call arguments become objects as HF expects. */
  #templateMessage(message: Message): Record<string, unknown> {
    return {
      role: this.#roleMap[message.role] ?? message.role,
      content: message.content,
      ...(message.reasoning_content === undefined ? {} : { reasoning_content: message.reasoning_content }),
      ...(message.tool_call_id === undefined ? {} : { tool_call_id: message.tool_call_id }),
      ...(message.tool_calls === undefined
        ? {}
        : {
            tool_calls: message.tool_calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.function.name, arguments: parseArguments(call.function.arguments) },
            })),
          }),
    };
  }
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
