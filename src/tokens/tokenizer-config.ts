import { z } from 'zod';

/** Special tokens are stored as strings or as `{content: …}` objects, depending on who wrote the file. */
const SpecialToken = z
  .union([z.string(), z.object({ content: z.string() }).passthrough()])
  .nullable()
  .optional()
  .transform((token) => (token === null || token === undefined ? undefined : typeof token === 'string' ? token : token.content));

/** The fields of HF `tokenizer_config.json` gymnast reads; the rest is passed through to the tokenizer. */
export const TokenizerConfig = z
  .object({
    bos_token: SpecialToken,
    eos_token: SpecialToken,
    pad_token: SpecialToken,
    unk_token: SpecialToken,
    /** One template, or named templates (`default`, `tool_use`, …) as a list. */
    chat_template: z.union([z.string(), z.array(z.object({ name: z.string(), template: z.string() }))]).optional(),
  })
  .passthrough();
export type TokenizerConfig = z.infer<typeof TokenizerConfig>;

/** The chat template to use: the only one, or the named one (default `default`) from a list. */
export function selectChatTemplate(config: TokenizerConfig, name = 'default'): string | undefined {
  const templates = config.chat_template;
  if (templates === undefined || typeof templates === 'string') return templates;
  return templates.find((entry) => entry.name === name)?.template;
}
