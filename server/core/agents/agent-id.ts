/**
 * An agent id: 1-64 of A-Z a-z 0-9 _ -, starting with a letter or digit. It appears as one
 * segment of URLs, NATS subjects and storage keys, so it can hold nothing that separates them.
 */
export const agentIdPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
