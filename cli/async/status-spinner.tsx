import { Box, Text } from 'ink';
import { statusLabel, type EventStatus } from './event-status.js';

/** Braille dots, as most terminal spinners use. */
export const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

export interface StatusSpinnerProps {
  eventId: string;
  /** The last status answer; absent before the first one arrives. */
  event?: Pick<EventStatus, 'status' | 'pendingAsyncTools' | 'pendingApprovals'>;
  /** Which spinner frame to draw; the caller advances it on a timer. */
  frame: number;
  elapsedSeconds: number;
}

/**
 * One line while `--wait` polls: `⠹ waiting for 2 async tools · evt_1 · 12s`. Pure: the
 * caller owns the timer and the polling, and re-renders with new props.
 */
export function StatusSpinner({ eventId, event, frame, elapsedSeconds }: StatusSpinnerProps) {
  const glyph = spinnerFrames[Math.abs(Math.trunc(frame)) % spinnerFrames.length];
  return (
    <Box>
      <Text color="cyan">{`${glyph} `}</Text>
      <Text>{event ? statusLabel(event) : 'waiting for the first status'}</Text>
      <Text dimColor>{` · ${eventId} · ${Math.max(0, Math.floor(elapsedSeconds))}s`}</Text>
    </Box>
  );
}
