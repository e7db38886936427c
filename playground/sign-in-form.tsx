import { type FormEvent, useState } from 'react';
import { type AgentSummary, clientFor } from './harness-client.js';

interface SignInFormProps {
  onSignedIn: (secret: string, agents: AgentSummary[]) => void;
}

/** Asks for the account secret and checks it by listing the agents. The secret goes nowhere else. */
export function SignInForm({ onSignedIn }: SignInFormProps) {
  const [secret, setSecret] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(secret.trim(), await clientFor(secret.trim()).playground.agents());
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in">
      <h1>harness playground</h1>
      <form onSubmit={submit} aria-describedby="sign-in-note">
        <label htmlFor="account-secret">Account secret</label>
        <input id="account-secret" name="account-secret" type="password" autoComplete="off" required value={secret} onChange={(event) => setSecret(event.target.value)} />
        <p id="sign-in-note" className="note">Kept in this tab's session storage only; closing the tab forgets it.</p>
        <button type="submit" disabled={busy || secret.trim() === ''}>Sign in</button>
        <p role="alert" className="error">{error ?? ''}</p>
      </form>
    </main>
  );
}
