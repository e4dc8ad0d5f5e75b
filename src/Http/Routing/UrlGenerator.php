<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** Builds paths from named routes, percent-encoding parameter values. */
final class UrlGenerator
{
    /** Characters RFC 3986 allows unencoded in a path segment besides the unreserved ones. */
    private const KEEP = ['%40' => '@', '%3A' => ':', '%21' => '!', '%24' => '$', '%26' => '&', '%27' => "'", '%28' => '(', '%29' => ')', '%2A' => '*', '%2B' => '+', '%2C' => ',', '%3B' => ';', '%3D' => '='];

    /** @param array<string, RoutePattern> $patterns */
    private function __construct(private readonly array $patterns) {}

    /**
     * @param list<RouteDefinition> $routes
     *
     * @throws RouteDefinitionException when two routes share a name
     */
    public static function fromRoutes(array $routes): self
    {
        $patterns = [];
        $labels = [];
        foreach ($routes as $route) {
            $name = $route->getName();
            if ($name === null) {
                continue;
            }
            if (isset($labels[$name])) {
                throw new RouteDefinitionException(\sprintf('Route name "%s" is used twice, by %s and %s; names must be unique.', $name, $labels[$name], $route->label()));
            }
            $labels[$name] = $route->label();
            $patterns[$name] = $route->pattern;
        }

        return new self($patterns);
    }

    /**
     * Parameters not in the pattern are appended as a query string.
     *
     * @param array<string, scalar|\Stringable> $params
     *
     * @throws UrlGenerationException on an unknown name, a missing parameter or one that breaks its constraint
     */
    public function url(string $name, array $params = []): string
    {
        $pattern = $this->patterns[$name] ?? throw new UrlGenerationException(\sprintf('No route is named "%s"; known names: %s.', $name, $this->patterns === [] ? '(none)' : implode(', ', array_keys($this->patterns))));
        $missing = array_diff($pattern->names, array_keys($params));
        if ($missing !== []) {
            throw new UrlGenerationException(\sprintf('Route "%s" (%s) needs the parameter(s) %s; pass them to url().', $name, $pattern->pattern, implode(', ', $missing)));
        }
        $parts = [];
        foreach ($pattern->segments as $segment) {
            if ($segment->kind === SegmentKind::Literal) {
                $parts[] = self::encode($segment->value);
                continue;
            }
            if ($segment->kind === SegmentKind::Mixed) {
                $text = '';
                foreach ($segment->parts as $part) {
                    $text .= $part->kind === SegmentKind::Literal ? $part->value : self::param($name, $part, $params);
                }
                $parts[] = self::encode($text);
                continue;
            }
            $value = $params[$segment->value];
            unset($params[$segment->value]);
            $string = \is_bool($value) ? ($value ? 'true' : 'false') : (string) $value;
            if ($segment->kind === SegmentKind::Rest) {
                if ($string === '' && $segment->source === '.+') {
                    throw new UrlGenerationException(\sprintf('Route "%s": parameter "%s" must not be empty.', $name, $segment->value));
                }
                $parts[] = implode('/', array_map(self::encode(...), explode('/', $string)));
                continue;
            }
            if ($string === '' || ($segment->regex !== null && preg_match($segment->regex, $string) !== 1)) {
                throw new UrlGenerationException(\sprintf('Route "%s": parameter "%s" = "%s" does not match %s.', $name, $segment->value, $string, $segment->source ?? 'a non-empty segment'));
            }
            $parts[] = self::encode($string);
        }
        $path = '/' . implode('/', $parts);

        return $params === [] ? $path : $path . '?' . http_build_query($params, '', '&', \PHP_QUERY_RFC3986);
    }

    /**
     * The value of a parameter inside a segment of text and parameters, checked against its
     * constraint; it is taken out of $params.
     *
     * @param array<string, scalar|\Stringable> $params
     */
    private static function param(string $route, Segment $param, array &$params): string
    {
        $value = $params[$param->value];
        unset($params[$param->value]);
        $string = \is_bool($value) ? ($value ? 'true' : 'false') : (string) $value;
        if ($string === '' || ($param->regex !== null && preg_match($param->regex, $string) !== 1)) {
            throw new UrlGenerationException(\sprintf('Route "%s": parameter "%s" = "%s" does not match %s.', $route, $param->value, $string, $param->source ?? 'a non-empty value'));
        }

        return $string;
    }

    private static function encode(string $segment): string
    {
        return strtr(rawurlencode($segment), self::KEEP);
    }
}
