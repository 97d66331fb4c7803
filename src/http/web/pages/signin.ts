import { html, type Html } from '../escape.js';

/** The sign-in form: the ops token only (agent keys are never accepted here). */
export function signInPage(csrf: string, failed: boolean): Html {
  return html`<h1>Sign in</h1>
${failed ? html`<p class="notice bad" role="alert">Sign-in failed: that is not the ops token.</p>` : undefined}
<form method="post" action="/ui/signin" class="signin">
<input type="hidden" name="csrf" value="${csrf}">
<label for="token">Ops token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Sign in</button>
<p class="muted">The ops token is the one <code>git-blinder serve</code> printed or read from <code>GIT_BLINDER_OPS_TOKEN</code>. Agent keys do not open this page.</p>
</form>`;
}
