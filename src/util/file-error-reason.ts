/** How a file operation failed, in words, when Node's error says (ENOENT, EACCES, …); undefined for anything else. */
export function fileErrorReason(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? (FILE_ERRORS[code] ?? (typeof (error as NodeJS.ErrnoException).syscall === 'string' ? code : undefined)) : undefined;
}

const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ENAMETOOLONG: 'the path is too long',
  ELOOP: 'too many symbolic links in the path',
  EMFILE: 'too many open files',
};
