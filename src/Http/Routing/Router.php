<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

use Nexus\Http\Handler\Problem;
use Nexus\Http\Request;
use Nexus\Http\RequestHandler;
use Nexus\Http\Response;

/**
 * Matches a request to a route and calls its pipeline. Built once at boot:
 * - static paths in a hash map [path][method], tried first for paths without "%";
 * - every route in a segment trie per method, where only constrained parameters use a regex.
 * The path is split on "/" before percent-decoding, so "%2F" stays inside its segment.
 * Unmatched paths get 404, paths matched under other methods 405 with Allow (OPTIONS: 204 + Allow),
 * malformed percent-encoding 400. Matched parameters go to $request->attributes[Router::PARAMS],
 * the matched route's template to $request->routeTemplate.
 *
 * Matches of paths with parameters are remembered: the route and the parameter values found for
 * a method and raw path, for paths up to MATCH_CACHE_MAX_PATH bytes, at most MATCH_CACHE_ENTRIES
 * of them per router. When it is full it is emptied and fills again (a client sending many
 * different paths costs the same as without it). A match depends on the method and the raw path
 * alone (the routes are fixed once compiled), so a remembered one is what the trie would find;
 * 404, 405 and 400 are not remembered.
 */
final class Router implements RequestHandler
{
    public const PARAMS = 'route_params';

    /** How many matches a router remembers at most (see the class comment). */
    public const MATCH_CACHE_ENTRIES = 512;

    /** The longest raw path whose match is remembered, in bytes. */
    public const MATCH_CACHE_MAX_PATH = 256;

    private const METHOD_ORDER = ['GET' => 0, 'HEAD' => 1, 'POST' => 2, 'PUT' => 3, 'PATCH' => 4, 'DELETE' => 5, 'OPTIONS' => 6];

    /** @var array<string, array<string, array{RouteLeaf, array<string, string>, array{route_params: array<string, string>}}>> by method, then raw path: the leaf, its values, and the attributes of a request that has none */
    private array $matches = [];

    private int $matchCount = 0;

    /**
     * @param array<string, array<string, RequestHandler>> $static
     * @param array<string, TrieNode> $tries
     */
    private function __construct(
        private readonly array $static,
        private readonly array $tries,
        /** a static pattern has a "%" (a raw path with one then never matches through $static) */
        private readonly bool $staticWithPercent,
    ) {}

    /**
     * A GET route also answers HEAD unless a HEAD route with the same pattern shape exists.
     *
     * @param list<RouteTarget> $routes
     *
     * @throws RouteDefinitionException on two routes with the same method and pattern shape
     */
    public static function compile(array $routes): self
    {
        $seen = [];
        $entries = [];
        foreach ($routes as $route) {
            foreach ($route->methods as $method) {
                $key = $method . ' ' . $route->pattern->shape();
                if (isset($seen[$key])) {
                    throw new RouteDefinitionException(\sprintf('Route %s duplicates route %s: both match %s %s; remove one or change its pattern.', $route->label, $seen[$key], $method, $route->pattern->pattern));
                }
                $seen[$key] = $route->label;
                $entries[] = [$method, $route];
            }
        }
        foreach ($routes as $route) {
            if (\in_array('GET', $route->methods, true) && !isset($seen['HEAD ' . $route->pattern->shape()])) {
                $seen['HEAD ' . $route->pattern->shape()] = $route->label;
                $entries[] = ['HEAD', $route];
            }
        }

        $static = [];
        $tries = [];
        foreach ($entries as [$method, $route]) {
            $pattern = $route->pattern;
            if ($pattern->isStatic()) {
                $static[$pattern->pattern][$method] = $route->handler;
            }
            $node = $tries[$method] ??= new TrieNode();
            $leaf = new RouteLeaf($route->handler, $pattern->names, $pattern->pattern);
            foreach ($pattern->segments as $segment) {
                if ($segment->kind === SegmentKind::Rest) {
                    $node->rest[$segment->source ?? '.+'] = $leaf;
                    continue 2;
                }
                if ($segment->kind === SegmentKind::Literal) {
                    $node = $node->literals[$segment->value] ??= new TrieNode();
                } elseif ($segment->kind === SegmentKind::Mixed) {
                    $node = $node->mixed[(string) $segment->regex] ??= new TrieNode();
                } elseif ($segment->regex !== null) {
                    $node = $node->constrained[$segment->regex] ??= new TrieNode();
                } else {
                    $node = $node->param ??= new TrieNode();
                }
            }
            $node->leaf = $leaf;
        }

        $withPercent = false;
        foreach (array_keys($static) as $pattern) {
            $withPercent = $withPercent || str_contains((string) $pattern, '%');
        }

        return new self($static, $tries, $withPercent);
    }

    public function handle(Request $request): Response
    {
        $path = $request->path();
        $method = $request->method();
        // Static paths are looked up for paths without "%" only; with no static pattern that has
        // one, a path found there has none, and the usual request is spared the search.
        $handler = $this->static[$path][$method] ?? null;
        if ($handler !== null && (!$this->staticWithPercent || !str_contains($path, '%'))) {
            $request->routeTemplate = $path;

            return $handler->handle($request);
        }
        $plain = !str_contains($path, '%');
        $match = $this->matches[$method][$path] ?? null;
        if ($match !== null) {
            $leaf = $match[0];
            if ($request->attributes === []) {
                $request->attributes = $match[2]; // shared until written: no array made per request
            } else {
                $request->attributes[self::PARAMS] = $match[1];
            }
            $request->routeTemplate = $leaf->template;

            return $leaf->handler->handle($request);
        }
        if ($plain) {
            if ($path === '' || $path[0] !== '/') {
                return Problem::response(404, 'No route matches this path.', $path);
            }
            $segments = explode('/', substr($path, 1));
        } else {
            if ($path[0] !== '/') {
                return Problem::response(404, 'No route matches this path.', $path);
            }
            if (preg_match('/%(?![0-9A-Fa-f]{2})/', $path) === 1) {
                return Problem::response(400, 'The path has malformed percent-encoding: "%" must be followed by two hex digits.', $path);
            }
            $segments = array_map(rawurldecode(...), explode('/', substr($path, 1)));
        }

        $trie = $this->tries[$method] ?? null;
        if ($trie !== null) {
            $values = [];
            $leaf = self::descend($trie, $segments, $values);
            if ($leaf === null) {
                $values = [];
                $leaf = self::walk($trie, $segments, 0, \count($segments), $values);
            }
            if ($leaf !== null) {
                $params = $leaf->names === [] ? [] : array_combine($leaf->names, $values);
                if (\strlen($path) <= self::MATCH_CACHE_MAX_PATH) {
                    if ($this->matchCount >= self::MATCH_CACHE_ENTRIES) {
                        $this->matches = [];
                        $this->matchCount = 0;
                    }
                    $this->matches[$method][$path] = [$leaf, $params, [self::PARAMS => $params]];
                    ++$this->matchCount;
                }
                $request->attributes[self::PARAMS] = $params;
                $request->routeTemplate = $leaf->template;

                return $leaf->handler->handle($request);
            }
        }

        return $this->unmatched($method, $segments, $path);
    }

    /**
     * @internal how many matches are remembered now (at most MATCH_CACHE_ENTRIES), for tests
     */
    public function rememberedMatches(): int
    {
        return $this->matchCount;
    }

    /**
     * The common case without recursion: each segment a literal child or, when there is none and
     * nothing else could match it first, an unconstrained `{name}`. That is the first path walk()
     * tries, so a leaf found here is the one it would return; null sends the request to walk(),
     * which also backtracks.
     *
     * @param list<string> $segments
     * @param list<string> $values the parameter values, when a leaf is found
     */
    private static function descend(TrieNode $node, array $segments, array &$values): ?RouteLeaf
    {
        foreach ($segments as $segment) {
            $child = $node->literals[$segment] ?? null;
            if ($child === null) {
                $child = $node->param;
                if ($child === null || $segment === '' || $node->constrained !== [] || $node->mixed !== []) {
                    return null;
                }
                $values[] = $segment;
            }
            $node = $child;
        }

        return $node->leaf;
    }

    /**
     * Methods that have a route for this raw path, in the usual order.
     *
     * @return list<string>
     */
    public function allowedMethods(string $path): array
    {
        if ($path === '' || $path[0] !== '/' || preg_match('/%(?![0-9A-Fa-f]{2})/', $path) === 1) {
            return [];
        }

        return $this->allowed(array_map(rawurldecode(...), explode('/', substr($path, 1))));
    }

    /** @param list<string> $segments */
    private function unmatched(string $method, array $segments, string $path): Response
    {
        $allowed = $this->allowed($segments);
        if ($allowed === []) {
            return Problem::response(404, 'No route matches this path.', $path);
        }
        if ($method === 'OPTIONS') {
            $allowed[] = 'OPTIONS';

            return Response::empty(204, ['Allow' => implode(', ', $allowed)]);
        }

        return Problem::response(
            405,
            \sprintf('%s is not allowed here; allowed: %s.', $method, implode(', ', $allowed)),
            $path,
            headers: ['Allow' => implode(', ', $allowed)],
        );
    }

    /**
     * @param list<string> $segments
     *
     * @return list<string>
     */
    private function allowed(array $segments): array
    {
        $allowed = [];
        foreach ($this->tries as $method => $trie) {
            $values = [];
            if (self::walk($trie, $segments, 0, \count($segments), $values) !== null) {
                $allowed[] = (string) $method;
            }
        }
        usort($allowed, static fn(string $a, string $b): int => [self::METHOD_ORDER[$a] ?? 99, $a] <=> [self::METHOD_ORDER[$b] ?? 99, $b]);

        return $allowed;
    }

    /**
     * Depth-first: literal child, then constrained parameters, then segments of text and
     * parameters, then `{name}`, then rest parameters,
     * backtracking when a branch fails further down.
     *
     * @param list<string> $segments
     * @param list<string> $values the parameter values collected so far
     */
    private static function walk(TrieNode $node, array $segments, int $i, int $count, array &$values): ?RouteLeaf
    {
        if ($i === $count) {
            return $node->leaf;
        }
        $segment = $segments[$i];
        $child = $node->literals[$segment] ?? null;
        if ($child !== null) {
            $leaf = self::walk($child, $segments, $i + 1, $count, $values);
            if ($leaf !== null) {
                return $leaf;
            }
        }
        foreach ($node->constrained as $regex => $child) {
            if (preg_match((string) $regex, $segment) === 1) {
                $values[] = $segment;
                $leaf = self::walk($child, $segments, $i + 1, $count, $values);
                if ($leaf !== null) {
                    return $leaf;
                }
                array_pop($values);
            }
        }
        foreach ($node->mixed as $regex => $child) {
            if (preg_match((string) $regex, $segment, $match) === 1) {
                $before = \count($values);
                foreach ($match as $group => $value) {
                    if (\is_string($group)) {
                        $values[] = $value;
                    }
                }
                $leaf = self::walk($child, $segments, $i + 1, $count, $values);
                if ($leaf !== null) {
                    return $leaf;
                }
                array_splice($values, $before);
            }
        }
        if ($node->param !== null && $segment !== '') {
            $values[] = $segment;
            $leaf = self::walk($node->param, $segments, $i + 1, $count, $values);
            if ($leaf !== null) {
                return $leaf;
            }
            array_pop($values);
        }
        foreach ($node->rest as $source => $leaf) {
            $rest = $i === $count - 1 ? $segment : implode('/', \array_slice($segments, $i));
            if ($source === '.*' || $rest !== '') {
                $values[] = $rest;

                return $leaf;
            }
        }

        return null;
    }
}
