import { z } from 'zod';
import { defineResourcesServer } from '../define-resources-server.js';
import type { ResourcesServerDefinition } from '../resources-server-definition.js';
import { defineTool } from '../resources-tool.js';

/**
 * An integer shown to the model as plain `{"type": "integer"}`, as pydantic writes `int`: zod's own
 * integer adds safe-integer bounds, and the tool list must equal the dataset's.
 */
const Integer = z.number().refine(Number.isInteger, 'must be an integer').meta({ type: 'integer' });

/** NeMo Gym's `TaskData`; NeMo Gym would divide by an empty `expected_synonym_values`, so it is refused up front. */
const Row = z.object({
  id: z.number().int(),
  expected_synonyms: z.array(z.string()),
  expected_synonym_values: z.array(Integer).nonempty(),
  minefield_label: z.string(),
  minefield_label_value: Integer,
});

// The return schemas in the descriptions are what FastAPI's response models render to, word for word.
const getSynonymValueDescription =
  'Get the synonym value for a synonym.\nThis operation returns a value that conforms to the following JSON Schema: {"properties": {"synonym_value": {"type": "integer", "title": "Synonym Value", "description": "The value for this synonym."}}, "type": "object", "required": ["synonym_value"]}\n';
const extractSynonymValuesDescription =
  'Extract the synonym values you retrieved for the term that is relevant to the user query.\nThis operation returns a value that conforms to the following JSON Schema: {"properties": {"success": {"type": "boolean", "title": "Success", "description": "Success."}}, "type": "object", "required": ["success"]}\n';

/** A synonym's value: the sum of its characters' code points (Python's `sum(map(ord, synonym))`). */
export function synonymValue(synonym: string): number {
  return [...synonym].reduce((sum, char) => sum + char.codePointAt(0)!, 0);
}

const ExtractCall = z.looseObject({ type: z.literal('function_call'), name: z.literal('extract_synonym_values'), arguments: z.string() });
const ExtractArguments = z.looseObject({ synonym_values: z.array(Integer) });

/**
 * The values of the last `extract_synonym_values` call. Arguments that are not JSON with integer
 * `synonym_values` extract nothing (NeMo Gym's verify raises there, a 500 for a model's mistake).
 */
function extractedValues(output: readonly unknown[]): number[] {
  const call = output.map((item) => ExtractCall.safeParse(item)).findLast((parsed) => parsed.success);
  if (!call?.success) return [];
  try {
    const args = ExtractArguments.safeParse(JSON.parse(call.data.arguments));
    return args.success ? args.data.synonym_values : [];
  } catch {
    return [];
  }
}

/**
 * NeMo Gym's `example_multi_step`: the model looks up synonym values (`get_synonym_value`) and reports
 * the relevant ones (`extract_synonym_values`); reward 1 when the last report equals
 * `expected_synonym_values` in order. The reply adds `parsed_synonym_values`, `accuracy`, `set_overlap`
 * (the share of expected values reported), `original_term_minefield_hit` (the `minefield_label` or its
 * value was reported) and `order_instruction_following_failure` (right values, wrong order).
 */
export function exampleMultiStep(): ResourcesServerDefinition {
  return defineResourcesServer<undefined, z.infer<typeof Row>>({
    name: 'example_multi_step',
    className: 'ExampleMultiStepResourcesServer',
    rowSchema: Row,
    tools: {
      get_synonym_value: defineTool({
        description: getSynonymValueDescription,
        parameters: z.object({ synonym: z.string().meta({ title: 'Synonym', description: 'The synonym to get the value for.' }) }),
        handler: ({ synonym }) => ({ synonym_value: synonymValue(synonym) }),
      }),
      extract_synonym_values: defineTool({
        description: extractSynonymValuesDescription,
        parameters: z.object({
          synonym_values: z.array(Integer).meta({ title: 'Synonym Values', description: 'The synonym values corresponding to the term for the user query.' }),
        }),
        handler: () => ({ success: true }),
      }),
    },
    verify: (body) => {
      const expected = body.expected_synonym_values;
      const actual = extractedValues(body.response.output);
      const accuracy = actual.length === expected.length && actual.every((value, index) => value === expected[index]);
      const reported = new Set(actual);
      const setOverlap = new Set(expected.filter((value) => reported.has(value))).size / expected.length;
      return {
        reward: accuracy ? 1 : 0,
        parsed_synonym_values: actual,
        accuracy,
        set_overlap: setOverlap,
        // The label is a word and the values numbers, so only its value can be hit; NeMo Gym checks both.
        original_term_minefield_hit: reported.has(body.minefield_label_value),
        order_instruction_following_failure: !accuracy && setOverlap === 1,
      };
    },
  });
}
