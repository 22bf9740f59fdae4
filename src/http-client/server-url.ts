/** Servers are named as `http://host:8000` or, as OpenAI clients write it, `http://host:8000/v1`: both mean the server. A query stays. */
export function serverUrl(url: string): string {
  const query = url.indexOf('?');
  const base = query < 0 ? url : url.slice(0, query);
  return `${base.replace(/\/+$/, '').replace(/\/v1$/, '')}${query < 0 ? '' : url.slice(query)}`;
}
