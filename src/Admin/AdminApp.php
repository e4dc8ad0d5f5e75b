<?php

declare(strict_types=1);

namespace Nexus\Admin;

use Nexus\Http\Application;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;
use Nexus\Http\Server\ResponseStream;
use Nexus\Metrics\PrometheusText;
use Nexus\Metrics\Snapshot;
use Psr\Log\LoggerInterface;

/**
 * The admin HTTP application (built on Nexus\Http\Application):
 *
 * - GET /metrics: the Prometheus text exposition of the metrics provider's snapshot;
 * - GET /livez: 200 "ok" while the process serves at all (says nothing else);
 * - GET /readyz: 200 when every check passes, else 503, as JSON with each check's outcome; the
 *   details only for a client on this machine (a loopback address), the others see ok/failed
 *   per check;
 * - GET /dashboard: one self-contained HTML page (inline CSS and JS, no external asset; a
 *   Content-Security-Policy keeps it so);
 * - GET /feed: server-sent events, one JSON frame per second (Feed); ?q=text narrows the actors
 *   to the paths containing it (at most 200 bytes); 503 beyond Feed::MAX_CLIENTS listeners;
 * - GET /feed.json: the current frame once (what `nexus top --once` and scripts read).
 *
 * @phpstan-import-type Families from Snapshot
 */
final class AdminApp
{
    public const MAX_FILTER_BYTES = 200;
    private const NO_STORE = ['Cache-Control' => 'no-store', 'X-Content-Type-Options' => 'nosniff'];

    private static ?string $page = null;

    /**
     * @param \Closure(): array{families: Families} $metrics
     */
    public function __construct(
        private readonly \Closure $metrics,
        private readonly Feed $feed,
        private readonly HealthChecks $checks,
        private readonly ?LoggerInterface $logger = null,
    ) {}

    /**
     * The request handler. Readiness details are shown to clients on this machine only (a
     * loopback client address, see trusts()).
     */
    public function handler(): RequestHandler
    {
        $app = new Application(logger: $this->logger);
        $app->get('/', static fn(): Response => new Response(302, ['Location' => '/dashboard'] + self::NO_STORE));
        $app->get('/metrics', fn(): Response => new Response(200, ['Content-Type' => PrometheusText::CONTENT_TYPE] + self::NO_STORE, PrometheusText::render(($this->metrics)())));
        $app->get('/livez', static fn(): Response => Response::text("ok\n", 200, self::NO_STORE));
        $app->get('/readyz', fn(Request $request): Response => $this->ready(self::trusts($request)));
        $app->get('/dashboard', static fn(): Response => Response::html(self::page(), 200, self::NO_STORE + [
            'Content-Security-Policy' => "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'",
        ]));
        $app->get('/feed', fn(Request $request): Response => $this->stream(self::filter($request)));
        $app->get('/feed.json', fn(Request $request): Response => new Response(200, ['Content-Type' => 'application/json'] + self::NO_STORE, $this->feed->json(self::filter($request))));

        return $app->handler();
    }

    /**
     * The dashboard page (read once from Resources/dashboard.html).
     */
    public static function page(): string
    {
        return self::$page ??= (string) file_get_contents(__DIR__ . '/Resources/dashboard.html');
    }

    /**
     * Whether the client is on this machine: its address (as the socket sees it) is loopback.
     * A request whose address is unknown is not trusted.
     */
    public static function trusts(Request $request): bool
    {
        $address = $request->clientAddress();
        if ($address === null) {
            return false;
        }
        $colon = strrpos($address, ':');

        return AdminAddress::isLoopbackHost($colon === false ? $address : substr($address, 0, $colon));
    }

    private function ready(bool $trusted): Response
    {
        $results = $this->checks->run();
        $ready = true;
        $checks = [];
        foreach ($results as $name => $result) {
            $ready = $ready && $result->ok;
            $checks[$name] = $trusted ? ['ok' => $result->ok, 'detail' => $result->detail] : ['ok' => $result->ok];
        }
        $body = ['status' => $ready ? 'ready' : 'not ready', 'checks' => (object) $checks];
        if (!$trusted) {
            $body['details'] = 'redacted: ask from this machine (over loopback, e.g. curl http://127.0.0.1:PORT/readyz there) to see them';
        }

        return Response::json($body, $ready ? 200 : 503, self::NO_STORE);
    }

    private function stream(string $filter): Response
    {
        if (!$this->feed->join()) {
            return Response::text(\sprintf("Too many live feed clients (at most %d); close a dashboard and retry.\n", Feed::MAX_CLIENTS), 503, ['Retry-After' => '5'] + self::NO_STORE);
        }
        $feed = $this->feed;

        return Response::stream(200, ['Content-Type' => 'text/event-stream; charset=utf-8', 'X-Accel-Buffering' => 'no'] + self::NO_STORE, static function (ResponseStream $out) use ($feed, $filter): void {
            try {
                $out->write("retry: 2000\n\ndata: " . $feed->json($filter) . "\n\n");
                while ($feed->wait()) {
                    if (!$out->isOpen()) {
                        return;
                    }
                    $out->write('data: ' . $feed->json($filter) . "\n\n");
                }
            } finally {
                $feed->leave();
            }
        });
    }

    private static function filter(Request $request): string
    {
        $filter = $request->queryParams()['q'] ?? '';

        return \is_string($filter) ? substr(trim($filter), 0, self::MAX_FILTER_BYTES) : '';
    }
}
