import type { ChatTool } from '../../core/chat-tool.js';
import type { Message } from '../../core/message.js';
import { RequestRejectedError } from '../http-server/request-rejected-error.js';
import { renderMessages } from './request-checks.js';
import type { RouteContext } from './route.js';
import { templateKwargs } from './template-kwargs.js';

export interface PromptControls {
  /** Open the assistant's next turn (default: true, unless the final message is continued). */
  addGenerationPrompt: boolean | undefined;
  /** Leave the final message open for the model to go on writing it. */
  continueFinalMessage: boolean | undefined;
  /** The request's `chat_template_kwargs`: extra variables for the template (`enable_thinking`). */
  chatTemplateKwargs?: Record<string, unknown> | undefined;
}

/**
 * The chat prompt's text as vLLM renders it under `add_generation_prompt` and `continue_final_message`:
 * continuing renders no generation prompt and cuts the text right after the final message's content,
 * dropping the end-of-turn markup the template closes it with.
 */
export function renderChatPrompt(
  context: RouteContext,
  messages: readonly Message[],
  tools: readonly ChatTool[] | undefined,
  controls: PromptControls,
): string {
  const continuing = controls.continueFinalMessage === true;
  if (continuing && controls.addGenerationPrompt === true) {
    throw new RequestRejectedError(400, 'continue_final_message and add_generation_prompt cannot both be true: continuing a message opens no new turn', {
      param: 'continue_final_message',
    });
  }
  const kwargs = templateKwargs(controls.chatTemplateKwargs);
  const text = renderMessages(context, messages, {
    addGenerationPrompt: controls.addGenerationPrompt ?? !continuing,
    ...(tools ? { tools } : {}),
    ...(kwargs ? { kwargs } : {}),
  });
  if (!continuing) return text;
  const final = messages.at(-1)?.content ?? '';
  const end = final === '' ? -1 : text.lastIndexOf(final);
  if (end < 0)
    throw new RequestRejectedError(400, 'continue_final_message needs a final message whose content the template renders as written', {
      param: 'continue_final_message',
    });
  return text.slice(0, end + final.length);
}
