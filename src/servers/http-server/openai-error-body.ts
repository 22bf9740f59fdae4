/**
 * OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`: the shape the `openai` SDK
 * and the AI SDK read the message from (any other shape, and they print "400 status code (no body)").
 */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface OpenAiErrorFields {
  /** OpenAI's category: `invalid_request_error`, `authentication_error`, `not_found_error`, `server_error`. */
  type: string;
  /** The request field at fault, when one is. */
  param?: string | undefined;
  /** A machine-readable reason (`model_not_found`, `context_length_exceeded`, ...), when there is one. */
  code?: string | undefined;
}

export function openAiErrorBody(message: string, fields: OpenAiErrorFields): OpenAiErrorBody {
  return { error: { message, type: fields.type, param: fields.param ?? null, code: fields.code ?? null } };
}
