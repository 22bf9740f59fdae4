/** An answer as it came: its status, headers (lower-case names) and body text. */
export interface HttpReply {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  text: string;
}
