import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, post, type SignedIn, type SignInStep } from '../lib/api';

/**
 * Password, then the authenticator code; on the first sign-in the API's answer carries the QR
 * code (and its secret, for typing in) to enrol an authenticator app, and the recovery codes come
 * back once, shown here before going on. `expired`: the same form over a screen whose session ended.
 */
export function SignIn({ onSignedIn, expired = false }: { onSignedIn: () => void; expired?: boolean }) {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<SignInStep | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'The back office could not be reached; try again');
    } finally {
      setBusy(false);
    }
  };

  const submitPassword = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const res = await post<SignInStep>('/auth/sign-in', { email, password });
      setPassword('');
      setStep(res.data);
    });
  };

  const finish = async () => {
    await client.invalidateQueries({ queryKey: ['session'] });
    onSignedIn();
  };

  const submitCode = (e: FormEvent) => {
    e.preventDefault();
    if (!step) return;
    const trimmed = code.replace(/\s+/g, '');
    void run(async () => {
      const body = /^\d{6}$/.test(trimmed) ? { challenge: step.challenge, code: trimmed } : { challenge: step.challenge, recoveryCode: code.trim() };
      const res = await post<SignedIn>('/auth/second-factor', body);
      setCode('');
      if (res.data.recoveryCodes?.length) setRecovery(res.data.recoveryCodes);
      else await finish();
    });
  };

  if (recovery) {
    return (
      <section className="signin card" aria-labelledby="signin-title">
        <h1 id="signin-title">Keep your recovery codes</h1>
        <p>Each code signs you in once if you lose your authenticator. They are shown only now.</p>
        <ul className="codes">{recovery.map((c) => <li key={c}><code>{c}</code></li>)}</ul>
        <button type="button" className="primary" onClick={() => void finish()}>I have kept them, continue</button>
      </section>
    );
  }

  return (
    <section className="signin card" aria-labelledby="signin-title">
      <h1 id="signin-title">{expired ? 'Your session ended: sign in again' : 'Sign in to the Game Relay console'}</h1>
      {expired && <p>What you were working on is kept; it comes back once you are signed in.</p>}
      {!step && (
        <form onSubmit={submitPassword}>
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <label htmlFor="password">Password</label>
          <input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          <button type="submit" className="primary" disabled={busy}>Continue</button>
        </form>
      )}
      {step && (
        <form onSubmit={submitCode}>
          {step.next === 'enrol' && (
            <div className="enrol">
              <p>Scan this code with an authenticator app, then type the 6-digit code it shows.</p>
              <img src={step.enrolment.qrCodeDataUrl} alt="QR code to add this account to an authenticator app" width={200} height={200} />
              <p>
                Or type this key: <code className="secret" data-testid="totp-secret">{step.enrolment.secret}</code>
              </p>
            </div>
          )}
          <label htmlFor="code">{step.next === 'enrol' ? 'First code from the app' : 'Authenticator code (or a recovery code)'}</label>
          <input id="code" inputMode="numeric" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
          <button type="submit" className="primary" disabled={busy}>Sign in</button>
          <button type="button" className="link" onClick={() => { setStep(null); setCode(''); }}>Start again</button>
        </form>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}
