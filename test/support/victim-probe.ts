import { requestJson } from './json-request.js';
import type { startWebhookReceiver } from './webhook-receiver.js';

type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

/** The longest a victim's request or webhook is waited for; a miss counts as this long. */
export const victimPatienceMs = 60_000;

/** An account's ordinary use: JSON chat turns and `/async` requests with a completion webhook. */
export interface VictimProbe {
  /**
   * Runs turns one after another, each on a conversation of its own, until `count` are done and
   * `until` has passed; gives each one's latency (a refused or unanswered turn counts as
   * `victimPatienceMs`) and the answers' statuses (0: none).
   */
  turns(label: string, count: number, until?: number): Promise<{ latencies: number[]; statuses: Record<number, number>; firstRefusal?: string }>;
  /** Sends one `/async` request and gives the time until its completion webhook arrived. */
  webhookDelay(label: string): Promise<number>;
}

export function victimProbe(agentUrl: string, secret: string, agentId: string, receiver: WebhookReceiver): VictimProbe {
  return {
    turns: async (label, count, until = 0) => {
      const latencies: number[] = [];
      const statuses: Record<number, number> = {};
      let firstRefusal: string | undefined;
      for (let index = 0; index < count || Date.now() < until; index += 1) {
        const started = performance.now();
        let status = 0;
        try {
          const answer = await Promise.race([
            requestJson(`${agentUrl}/agents/${agentId}/chat`, { secret, body: { conversationKey: `${label}-${index}`, message: `ordinary question ${index}` } }),
            new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('no answer')), victimPatienceMs).unref()),
          ]);
          status = answer.status;
          if (status !== 200) firstRefusal ??= `${status} ${JSON.stringify(answer.body.error ?? answer.body).slice(0, 300)}`;
        } catch {
          // No answer within victimPatienceMs.
        }
        statuses[status] = (statuses[status] ?? 0) + 1;
        latencies.push(status === 200 ? performance.now() - started : victimPatienceMs);
        // An ordinary user's pace, whatever the answer: a fast service must not let the victim spend its own budget.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return { latencies, statuses, firstRefusal };
    },
    webhookDelay: async (label) => {
      const started = performance.now();
      const answer = await requestJson(`${agentUrl}/agents/${agentId}/async`, { secret, body: { conversationKey: label, message: 'ordinary background question' } });
      if (answer.status !== 202) return victimPatienceMs;
      const eventId = String(answer.body.eventId);
      while (performance.now() - started < victimPatienceMs) {
        if (receiver.received.some((webhook) => webhook.headers['x-harness-event'] === eventId)) return performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return victimPatienceMs;
    },
  };
}

/** The value below which `fraction` of the sorted samples fall (nearest rank). */
export function percentile(samples: number[], fraction: number): number {
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
}
