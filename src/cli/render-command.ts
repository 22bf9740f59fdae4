import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { ConfigError } from '../core/errors/config-error.js';
import {
  JinjaChatTemplate,
  loadHfTokenizer,
  ResponsesItem,
  ResponsesTool,
  responsesInputToMessages,
  responsesToolsToChatTools,
  TemplateRenderer,
  TokenLedger,
} from '../tokens/index.js';
import { readJsonLines } from '../util/json-lines.js';

/** The part of a NeMo Gym row that becomes the prompt. */
const PromptRow = z.object({
  responses_create_params: z.object({
    input: z.union([z.string(), z.array(ResponsesItem)]),
    tools: z.array(ResponsesTool).optional(),
  }),
});

interface RenderOptions {
  tokenizer: string;
  input: string;
  line: number;
  chatTemplateKwargs?: Record<string, unknown>;
}

export function renderCommand(): Command {
  return new Command('render')
    .description("render one dataset row's prompt with a model's chat template and tokenizer, printed as JSON {text, token_ids}")
    .requiredOption('--tokenizer <dir>', 'folder with tokenizer.json and tokenizer_config.json')
    .requiredOption('--input <file>', 'JSONL file of NeMo Gym rows (responses_create_params.input + tools)')
    .option('--line <n>', 'line number in the file, from 1', positiveInteger, 1)
    .option('--chat-template-kwargs <json>', 'extra template variables, e.g. \'{"enable_thinking": false}\'', jsonObject)
    .action(async (options: RenderOptions) => {
      const row = await readRow(options.input, options.line);
      const tokenizer = await loadHfTokenizer(options.tokenizer);
      const template = JinjaChatTemplate.fromConfig(tokenizer.config, options.chatTemplateKwargs ? { kwargs: options.chatTemplateKwargs } : {});
      const messages = responsesInputToMessages(row.responses_create_params.input);
      const tools = responsesToolsToChatTools(row.responses_create_params.tools ?? []);
      const text = template.render(messages, { addGenerationPrompt: true, tools });
      const renderer = new TemplateRenderer(tokenizer, template);
      const { tokenIds } = renderer.renderDelta(new TokenLedger(tokenizer), [], messages, { addGenerationPrompt: true, tools });
      process.stdout.write(`${JSON.stringify({ text, token_ids: tokenIds.flat(), num_tokens: tokenIds.flat().length })}\n`);
    });
}

async function readRow(path: string, wanted: number): Promise<z.infer<typeof PromptRow>> {
  for await (const { line, text } of readJsonLines(path)) {
    if (line !== wanted) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ConfigError(`${path}:${line}: not valid JSON (${(error as Error).message})`);
    }
    const row = PromptRow.safeParse(value);
    if (!row.success) {
      const issues = row.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      throw new ConfigError(`${path}:${line}: ${issues}`);
    }
    return row.data;
  }
  throw new ConfigError(`${path} has no row on line ${wanted}`);
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a whole number from 1');
  return number;
}

function jsonObject(value: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // fall through to the same message
  }
  throw new InvalidArgumentError('expected a JSON object');
}
