import { redactUrls } from '../../util/redact-urls.js';
import { GymnastError } from './gymnast-error.js';

/**
 * An HTTP call that got no usable answer, whoever made it: a policy's client, an environment's, an
 * agent's. Whether sending it again may help is derived from what came back, as vercel/ai's
 * `APICallError.isRetryable` is: no answer at all (the connection failed, the deadline passed) or a
 * server that says it is busy or broken (429, 5xx) may do better next time; any other status would
 * be refused the same way. Credentials in the URL, and in URLs the message echoes, are masked: the
 * message reaches failure rows and stderr.
 */
export abstract class HttpCallError extends GymnastError {
  readonly url: string;
  /** Whether the same request may succeed if sent again. */
  readonly isRetryable: boolean;

  constructor(url: string, detail: string, options: { status?: number; cause?: unknown } = {}) {
    super(redactUrls(`${url}: ${detail}`), options);
    this.url = redactUrls(url);
    const { status } = options;
    this.isRetryable = status === undefined || status === 429 || status >= 500;
  }
}
