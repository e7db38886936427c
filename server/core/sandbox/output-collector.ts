/** Collects stdout and stderr under one shared byte budget, draining past it. */
export class OutputCollector {
  private readonly chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  private readonly dropped = { stdout: 0, stderr: 0 };
  private kept = 0;
  constructor(private readonly maxBytes: number) {}

  add(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const room = this.maxBytes - this.kept;
    const keep = Math.max(0, Math.min(room, chunk.length));
    if (keep > 0) this.chunks[stream].push(chunk.subarray(0, keep));
    this.kept += keep;
    this.dropped[stream] += chunk.length - keep;
  }

  get truncated(): boolean {
    return this.dropped.stdout + this.dropped.stderr > 0;
  }

  text(stream: 'stdout' | 'stderr'): string {
    const text = Buffer.concat(this.chunks[stream]).toString('utf8');
    if (this.dropped[stream] === 0) return text;
    // A cut can split a UTF-8 character; drop the replacement characters it leaves.
    const kept = text.replace(/\uFFFD+$/, '');
    const separator = kept === '' || kept.endsWith('\n') ? '' : '\n';
    return `${kept}${separator}[output truncated: ${this.dropped[stream]} more bytes of ${stream} past the ${this.maxBytes}-byte limit]`;
  }
}
