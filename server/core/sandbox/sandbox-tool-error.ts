/** Why a sandbox tool refused or failed; the message is what the model reads. */
export type SandboxToolErrorKind =
  | 'path-outside-workspace'
  | 'not-found'
  | 'not-a-file'
  | 'too-large'
  | 'binary-file'
  | 'read-only'
  | 'no-match'
  | 'ambiguous-match'
  | 'invalid-input'
  | 'disk-quota'
  | 'sandbox-unavailable'
  | 'timed-out';

/**
 * A tool failure the model can act on (bad path, no match...). The tool wrappers turn it
 * into `{error: message}` for the model instead of failing the turn, so messages name the
 * workspace-relative path and never a host path.
 */
export class SandboxToolError extends Error {
  readonly kind: SandboxToolErrorKind;
  constructor(kind: SandboxToolErrorKind, message: string) {
    super(message);
    this.name = 'SandboxToolError';
    this.kind = kind;
  }
}
