import { type SignupSettings, signupSettingsFromEnvironment } from '../accounts/signup-policy.js';
import { type ChannelSettings, channelSettingsFromEnvironment } from '../channels/channel-settings.js';
import { type WebhookSettings, webhookSettingsFromEnvironment } from '../completion-webhooks/webhook-settings.js';
import { type IdempotencySettings, idempotencySettingsFromEnvironment } from '../idempotency/idempotency-settings.js';
import { limitsFromEnvironment, type ServiceLimits } from '../limits/service-limits.js';
import { type McpSettings, mcpSettingsFromEnvironment } from '../mcp/mcp-settings.js';
import { type MemorySettings, memorySettingsFromEnvironment } from '../memory/memory-settings.js';
import { type ModelSettings, modelSettingsFromEnvironment } from '../model/model-settings.js';
import { outboundSettingsFromEnvironment, type OutboundSettings } from '../outbound/outbound-settings.js';
import { type BusySettings, busySettingsFromEnvironment } from '../runs/busy-settings.js';
import { type SandboxSettings, sandboxSettingsFromEnvironment } from '../sandbox/sandbox-settings.js';
import { type ResumeLimits, resumeLimitsFromEnvironment } from '../stream-resumes/resume-settings.js';
import { type ToolEnvironment, toolEnvironmentFrom } from '../tools/tool-context.js';
import { type TurnSettings, turnSettingsFromEnvironment } from '../turns/turn-settings.js';

/**
 * Every operator setting the core uses, each part read by its own module (`HARNESS_*` and the
 * tool keys). `serve` reads them once, from the environment, and hands them to the core; the
 * core itself never reads the environment.
 */
export interface CoreSettings {
  /** Rate limits and size limits (`HARNESS_LIMIT_*`). */
  limits: ServiceLimits;
  /** Who may sign up and how often (`HARNESS_SIGNUP`, `HARNESS_LIMIT_SIGNUPS_PER_MINUTE`). */
  signup: SignupSettings;
  /** Where accounts' outbound calls may go (`HARNESS_OUTBOUND_*`). */
  outbound: OutboundSettings;
  /** Bounds on one model call's answer (`HARNESS_MODEL_*`). */
  model: ModelSettings;
  /** Bounds on what a turn's model calls leave behind (`HARNESS_TURN_*`). */
  turns: TurnSettings;
  /** Bounds on channel providers' API answers (`HARNESS_CHANNEL_*`). */
  channelSettings: ChannelSettings;
  /** How completion webhooks are sent and retried (`HARNESS_WEBHOOK_*`). */
  webhooks: WebhookSettings;
  /** MCP connections' timeouts, lifetimes and bounds (`HARNESS_MCP_*`). */
  mcp: McpSettings;
  /** Stream resumes and NATS replays open at once (`HARNESS_LIMIT_RESUMES_*`). */
  resumes: ResumeLimits;
  /** Messages that may wait for a conversation's running turn (`HARNESS_BUSY_*`). */
  busy: BusySettings;
  /** How long `Idempotency-Key` answers are kept (`HARNESS_IDEMPOTENCY_*`). */
  idempotency: IdempotencySettings;
  /** The sandbox (`HARNESS_SANDBOX_*`). */
  sandboxSettings: SandboxSettings;
  /** Bounds on agents' memory notes and how many are recalled (`HARNESS_MEMORY_*`). */
  memory: MemorySettings;
  /** The service-wide keys of the built-in tools (`ALPHA_API_KEY`, `ALPHA_BASE_URL`...). */
  toolEnvironment: ToolEnvironment;
}

/** Reads every core setting from `environment`, once; a bad value is a start error naming its variable. */
export function coreSettingsFromEnvironment(environment: NodeJS.ProcessEnv): CoreSettings {
  return {
    limits: limitsFromEnvironment(environment),
    signup: signupSettingsFromEnvironment(environment),
    outbound: outboundSettingsFromEnvironment(environment),
    model: modelSettingsFromEnvironment(environment),
    turns: turnSettingsFromEnvironment(environment),
    channelSettings: channelSettingsFromEnvironment(environment),
    webhooks: webhookSettingsFromEnvironment(environment),
    mcp: mcpSettingsFromEnvironment(environment),
    resumes: resumeLimitsFromEnvironment(environment),
    busy: busySettingsFromEnvironment(environment),
    idempotency: idempotencySettingsFromEnvironment(environment),
    sandboxSettings: sandboxSettingsFromEnvironment(environment),
    memory: memorySettingsFromEnvironment(environment),
    toolEnvironment: toolEnvironmentFrom(environment),
  };
}

/** The defaults of every setting: what an empty environment gives. */
export const defaultCoreSettings: CoreSettings = coreSettingsFromEnvironment({});

/** The given settings over the defaults (a test or a tool passes only what it changes). */
export function coreSettingsWith(given: Partial<CoreSettings>): CoreSettings {
  const defined = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<CoreSettings>;
  return { ...defaultCoreSettings, ...defined };
}
