import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { outputText } from '../response-text.js';
import { McqaGradingMode, mcqaAnswer, type McqaServerGradingMode } from './mcqa-answer.js';
import { pythonStrip } from './python-text.js';

/** NeMo Gym's `MCQARunRequest`: only the top-level `options` and `expected_answer` grade; `metadata` is carried. */
const Row = z.object({
  uuid: z.string().nullable().default(null),
  options: z.array(z.record(z.string(), z.string().nullable())).nullable().default(null),
  expected_answer: z.string().nullable().default(null),
  metadata: z.record(z.string(), z.unknown()).nullable().default(null),
  grading_mode: McqaGradingMode.default('strict_single_letter_boxed'),
  template_metadata: z
    .looseObject({ output_regex: z.union([z.string(), z.array(z.string())]).optional() })
    .nullable()
    .default(null),
});

export interface McqaOptions {
  /** The server's `grading_mode` setting: it overrides every row's, and alone may be `lenient_answer_colon_md`. */
  gradingMode?: McqaServerGradingMode;
}

/**
 * NeMo Gym's `mcqa`: the answer letter from the row's template regexes if it has them, else by the
 * server's or the row's `grading_mode` (the letter in the last box; or, leniently, an option's text in
 * it, `Answer: …`, or a markdown `**Answer: X**`), against the letters of `options`; reward 1 when it is
 * `expected_answer`. The reply carries `expected_answer` trimmed and upper-cased, and `extracted_answer`
 * (null when none).
 */
export function mcqa(options: McqaOptions = {}): ResourcesServerDefinition {
  return defineResourcesServer<undefined, z.infer<typeof Row>>({
    name: 'mcqa',
    className: 'MCQAResourcesServer',
    rowSchema: Row,
    verify: (body) => {
      const gold = pythonStrip(body.expected_answer ?? '').toUpperCase();
      const text = pythonStrip(outputText(body.response));
      const extracted =
        text === ''
          ? undefined
          : mcqaAnswer(text, {
              options: body.options,
              outputRegex: body.template_metadata?.output_regex,
              gradingMode: options.gradingMode ?? body.grading_mode,
            });
      return { reward: extracted !== undefined && gold !== '' && extracted === gold ? 1 : 0, expected_answer: gold, extracted_answer: extracted ?? null };
    },
  });
}
