/** Whether `text` is an absolute http or https URL: what gymnast's HTTP clients can call. */
export function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
