import { Box, Text } from 'ink';
import { spinnerFrames } from '../async/status-spinner.js';
import { formatSeconds, type StepState } from './deploy-steps.js';

export interface DeployProgressProps {
  steps: readonly StepState[];
  /** Spinner frame for the running step; the caller advances it on a timer. */
  frame: number;
  /** Milliseconds the running step has taken so far. */
  runningMs: number;
}

const marks = { done: '✓', failed: '✗', skipped: '-', pending: '·' } as const;
const colors = { done: 'green', failed: 'red', skipped: 'gray', pending: 'gray', running: 'cyan' } as const;

/** The deploy steps, one line each: mark, name, time, note. Pure: data in as props. */
export function DeployProgress({ steps, frame, runningMs }: DeployProgressProps) {
  return (
    <Box flexDirection="column">
      {steps.map((step) => {
        const mark = step.status === 'running' ? spinnerFrames[Math.abs(Math.trunc(frame)) % spinnerFrames.length] : marks[step.status];
        const elapsed = step.status === 'running' ? runningMs : step.elapsedMs;
        return (
          <Box key={step.name}>
            <Text color={colors[step.status]}>{`${mark} `}</Text>
            <Text dimColor={step.status === 'pending' || step.status === 'skipped'}>{step.name}</Text>
            {elapsed === undefined ? null : <Text dimColor>{`  ${formatSeconds(elapsed)}`}</Text>}
            {step.status === 'skipped' ? <Text dimColor>{'  skipped'}</Text> : null}
            {step.note ? <Text dimColor>{`  (${step.note})`}</Text> : null}
          </Box>
        );
      })}
    </Box>
  );
}
