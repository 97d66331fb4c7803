// `/ui`: the operator's web page. The only HTML room: a human session with CSRF tokens, the ops token to sign in,
// never an agent key and never a Bearer header. It reads proposals and perimeters through the registry and never
// imports src/mcp: a page is not an agent.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Perimeter } from '../../core/index.js';
import type { ProposalService } from '../../registry/proposals.js';
import type { Log } from '../../registry/tool.js';
import type { Upstream, UpstreamFor } from '../../upstream/types.js';
import type { Workspace } from '../../workspace/types.js';
import { sameSecret } from '../auth.js';
import type { OpsGate } from '../ops-gate.js';
import { cookieValue, PRE_COOKIE, SESSION_COOKIE, setCookie } from './cookies.js';
import { fileDiffs } from './filediffs.js';
import { consolePage, type AuditHealth, type AuditLine } from './pages/console.js';
import { listPage } from './pages/list.js';
import { proposalPage } from './pages/proposal.js';
import { signInPage, type SignInNotice } from './pages/signin.js';
import { filePage } from './render-diff.js';
import { page, securityHeaders, seeOther, sendError, sendPage } from './respond.js';
import type { WebSession, WebSessions } from './sessions.js';
import { STYLESHEET } from './style.js';

/** What the page needs from the process; everything is passed in. */
export interface WebDeps {
  /** The one check of the ops token (per-source back-off, each sign-in audited). */
  readonly gate: OpsGate;
  readonly proposals: Pick<ProposalService, 'list' | 'get' | 'approve' | 'reject'>;
  readonly perimeters: () => readonly Perimeter[];
  readonly upstreamFor: UpstreamFor;
  readonly upstreams: readonly Upstream[];
  /** Working trees, for the content of commit and plan proposals (absent: their rows say the content is not shown). */
  readonly workspace?: Workspace;
  /** Open MCP sessions by perimeter id. */
  readonly sessionCounts: () => Readonly<Record<string, number>>;
  /** The newest audit entries, newest first; absent when the ledger is off. */
  readonly recentAudit?: (limit: number) => Promise<readonly AuditLine[]>;
  /** The ledger's status and warnings; absent when the ledger is off. */
  readonly auditHealth?: () => AuditHealth;
  /** Signed-in browsers, kept in the state store (shared by every instance). */
  readonly sessions: WebSessions;
  readonly log: Log;
  readonly now?: () => number;
}

/** Who decided, as stored on the proposal and in the audit ledger. */
export const WEB_OPERATOR = 'operator (web)';

type Signed = Request & { webSession?: WebSession };

const field = (req: Request, name: string): string | undefined => {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
};

/** The /ui router (mounted at /ui). */
export function webRouter(deps: WebDeps): Router {
  const r = express.Router();
  const sessions = deps.sessions;
  const now = deps.now ?? Date.now;
  // Cookies are Secure when the browser reached us over TLS (directly or, with trust proxy set, through a proxy).
  const cookie = (req: Request, name: string, value: string, maxAgeSeconds: number) =>
    setCookie(name, value, { maxAgeSeconds, secure: req.secure });

  r.use((_req, res, next) => {
    securityHeaders(res);
    next();
  });

  // A POST must be a form from one of our own pages: a cross-site fetch (Sec-Fetch-Site) is refused before parsing;
  // the Origin check of the whole app ran already, the CSRF token is checked per route.
  r.post('/{*rest}', (req, res, next) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin')
      return sendError(res, 403, 'Refused', 'Cross-site form posts are refused.');
    if (!req.is('application/x-www-form-urlencoded'))
      return sendError(res, 415, 'Refused', 'Only this page’s own forms may post here.');
    next();
  });
  r.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 16 }));

  r.get('/static/app.css', (_req, res) => {
    res.type('text/css; charset=utf-8').send(STYLESHEET);
  });

  const sessionOf = (req: Request): Promise<WebSession | undefined> =>
    sessions.get(cookieValue(req.headers.cookie, SESSION_COOKIE));

  const showSignIn = async (req: Request, res: Response, status: number, notice: SignInNotice) => {
    let pre = cookieValue(req.headers.cookie, PRE_COOKIE);
    if (pre === undefined) {
      pre = sessions.newPreSession();
      res.append('Set-Cookie', cookie(req, PRE_COOKIE, pre, 3_600));
    }
    sendPage(res, status, page({ title: 'Sign in' }, signInPage(await sessions.signInToken(pre), notice)));
  };

  r.get('/signin', async (req, res) => {
    if (await sessionOf(req)) return seeOther(res, '/ui/proposals');
    showSignIn(req, res, 200, { kind: 'none' });
  });

  r.post('/signin', async (req, res) => {
    if (!(await sessions.signInTokenMatches(cookieValue(req.headers.cookie, PRE_COOKIE), field(req, 'csrf')))) {
      return sendError(
        res,
        403,
        'Refused',
        'This form has expired or did not come from this page. Open the sign-in page again.',
      );
    }
    // The ops token only: an agent key, however valid on its perimeter, is just a wrong token here.
    const checked = deps.gate.check(field(req, 'token'), {
      surface: 'web',
      route: 'POST /ui/signin',
      address: req.socket.remoteAddress,
    });
    switch (checked.kind) {
      case 'ok':
        break;
      case 'wrong':
        deps.log('warn', 'web sign-in refused', { source: req.socket.remoteAddress ?? 'unknown' });
        return showSignIn(req, res, 401, { kind: 'wrong' });
      case 'wait':
        res.setHeader('Retry-After', String(checked.retryAfterSeconds));
        return showSignIn(req, res, 429, { kind: 'wait', seconds: checked.retryAfterSeconds });
      default: {
        const never: never = checked;
        throw new Error(`unhandled ops check ${String(never)}`);
      }
    }
    // A sign-in over a live session replaces it: one browser, one session id, never the one it came with.
    const previous = await sessionOf(req);
    if (previous) await sessions.destroy(previous.id);
    const s = await sessions.create();
    res.append('Set-Cookie', cookie(req, SESSION_COOKIE, s.id, sessions.cookieMaxAgeSeconds));
    res.append('Set-Cookie', cookie(req, PRE_COOKIE, '', 0));
    deps.log('info', 'web sign-in', { source: req.socket.remoteAddress ?? 'unknown' });
    seeOther(res, '/ui/proposals');
  });

  // Everything below needs a signed-in session; every POST below also needs that session's CSRF token.
  r.use(async (req: Signed, res: Response, next: NextFunction) => {
    const s = await sessionOf(req);
    if (!s) {
      if (req.method === 'GET' || req.method === 'HEAD') return seeOther(res, '/ui/signin');
      return sendError(res, 403, 'Refused', 'Sign in first.');
    }
    if (req.method === 'POST' && !sameSecret(field(req, 'csrf'), s.csrf)) {
      return sendError(
        res,
        403,
        'Refused',
        'This form has expired or did not come from this page. Reload the page and try again.',
        s.csrf,
      );
    }
    req.webSession = s;
    next();
  });
  const csrfOf = (req: Signed): string => {
    if (!req.webSession) throw new Error('web route reached without a session');
    return req.webSession.csrf;
  };

  r.post('/signout', async (req: Signed, res) => {
    if (req.webSession) await sessions.destroy(req.webSession.id);
    res.append('Set-Cookie', cookie(req, SESSION_COOKIE, '', 0));
    seeOther(res, '/ui/signin');
  });

  r.get('/', (_req, res) => seeOther(res, '/ui/proposals'));

  r.get('/proposals', async (req: Signed, res) => {
    const all = await deps.proposals.list();
    const pending = all.filter((p) => p.status === 'pending');
    const decided = all
      .filter((p) => p.status !== 'pending')
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at))
      .slice(0, 20);
    sendPage(res, 200, page({ title: 'Pending proposals', csrf: csrfOf(req) }, listPage(pending, decided, now())));
  });

  const showProposal = async (req: Signed, res: Response, status: number, problem?: string) => {
    const id = String(req.params.id);
    const p = await deps.proposals.get(id);
    if (!p) return sendError(res, 404, 'Not found', 'No such proposal.', csrfOf(req));
    const [files, all] = await Promise.all([fileDiffs(p, deps.upstreamFor, deps.workspace), deps.proposals.list()]);
    const body = proposalPage({
      proposal: p,
      files,
      all,
      csrf: csrfOf(req),
      now: now(),
      ...(problem ? { problem } : {}),
    });
    sendPage(res, status, page({ title: `Proposal ${p.id}`, csrf: csrfOf(req) }, body));
  };

  r.get('/proposals/:id', (req: Signed, res) => showProposal(req, res, 200));

  r.get('/proposals/:id/files/:n', async (req: Signed, res) => {
    const p = await deps.proposals.get(String(req.params.id));
    const n = Number(req.params.n);
    const files = p ? await fileDiffs(p, deps.upstreamFor, deps.workspace) : [];
    const f = Number.isInteger(n) && n >= 0 ? files[n] : undefined;
    if (!p || !f) return sendError(res, 404, 'Not found', 'No such file in this proposal.', csrfOf(req));
    const from = Number(typeof req.query.from === 'string' ? req.query.from : 0);
    sendPage(
      res,
      200,
      page(
        { title: `Proposal ${p.id}`, csrf: csrfOf(req) },
        filePage(p.id, n, f, Number.isInteger(from) && from >= 0 ? from : 0),
      ),
    );
  });

  const statusOf = (code: 'not_found' | 'conflict' | 'invalid'): number => {
    switch (code) {
      case 'not_found':
        return 404;
      case 'conflict':
        return 409;
      case 'invalid':
        return 400;
      default: {
        const never: never = code;
        throw new Error(`unhandled proposal error ${String(never)}`);
      }
    }
  };

  r.post('/proposals/:id/approve', async (req: Signed, res) => {
    const id = String(req.params.id);
    const hash = field(req, 'hash');
    if (hash === undefined)
      return showProposal(req, res, 400, 'The approval form lost the change hash: reload the page.');
    const out = await deps.proposals.approve(id, WEB_OPERATOR, hash);
    if (!out.ok) return showProposal(req, res, statusOf(out.code), out.message);
    seeOther(res, `/ui/proposals/${encodeURIComponent(id)}`);
  });

  r.post('/proposals/:id/reject', async (req: Signed, res) => {
    const id = String(req.params.id);
    const reason = (field(req, 'reason') ?? '').trim();
    if (reason === '' || reason.length > 2_000)
      return showProposal(req, res, 400, 'Give a reason for rejecting (at most 2,000 characters).');
    const out = await deps.proposals.reject(id, WEB_OPERATOR, reason);
    if (!out.ok) return showProposal(req, res, statusOf(out.code), out.message);
    seeOther(res, `/ui/proposals/${encodeURIComponent(id)}`);
  });

  r.get('/console', async (req: Signed, res) => {
    const [upstreams, audit, all] = await Promise.all([
      Promise.all(deps.upstreams.map(async (u) => ({ kind: u.kind, ...(await u.health()) }))),
      deps.recentAudit ? deps.recentAudit(50) : Promise.resolve(undefined),
      deps.proposals.list({ status: 'pending' }),
    ]);
    const model = {
      perimeters: deps.perimeters(),
      sessions: deps.sessionCounts(),
      webSessions: await sessions.size(),
      upstreams,
      audit,
      auditHealth: deps.auditHealth?.(),
      pending: all.length,
    };
    sendPage(res, 200, page({ title: 'Console', csrf: csrfOf(req) }, consolePage(model)));
  });

  r.use((req: Signed, res: Response) => sendError(res, 404, 'Not found', 'No such page.', csrfOf(req)));

  // A failure inside a page: a generic page, the detail in the log only (it may name paths or upstream messages).
  r.use((err: unknown, req: Signed, res: Response, _next: NextFunction) => {
    const status = (err as { status?: unknown }).status;
    const code = typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
    if (code === 500) deps.log('error', 'web page failed', { error: err instanceof Error ? err.message : String(err) });
    if (res.headersSent) return;
    sendError(
      res,
      code,
      code === 500 ? 'Something went wrong' : 'Bad request',
      code === 500 ? 'The page failed; the server log has the detail.' : 'The request could not be read.',
      req.webSession?.csrf,
    );
  });

  return r;
}
