/**
 * A listening socket that could not be opened, said in terms of the setting that picks it: the
 * operator sets PORT, so "listen EADDRINUSE: address already in use :::3000" becomes what to change.
 */
export function listenError(err: unknown, port: number, what: string): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new Error(
      `${what}: port ${port} is already in use. Stop what listens there, or set PORT to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return new Error(
      `${what}: not allowed to listen on port ${port} (ports below 1024 need privileges). Set PORT to 1024 or above.`,
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}
