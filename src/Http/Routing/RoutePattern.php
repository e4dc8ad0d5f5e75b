<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/**
 * A parsed route pattern such as `/users/{id:\d+}/files/{path:.+}`. A parameter fills a whole
 * segment, or shares it with text (`/files/{name}.{ext}`): such a segment is matched by one regex,
 * built here, where a parameter without a constraint takes as much as it can (`a.tar.gz` gives
 * name `a.tar` and ext `gz`). A parameter whose constraint is exactly `.+` or `.*` takes the rest of
 * the path and must be last.
 * Literal text and constraints are matched against the percent-decoded segment, so write `/café`,
 * not `/caf%C3%A9`.
 */
final readonly class RoutePattern
{
    /**
     * @param list<Segment> $segments
     * @param list<string> $names parameter names, in order
     */
    private function __construct(
        public string $pattern,
        public array $segments,
        public array $names,
    ) {}

    /** @throws RouteDefinitionException when the pattern is malformed */
    public static function parse(string $pattern): self
    {
        if ($pattern === '' || $pattern[0] !== '/') {
            throw new RouteDefinitionException(\sprintf('Route pattern "%s" must start with "/".', $pattern));
        }
        $segments = [];
        $names = [];
        $length = \strlen($pattern);
        $i = 1;
        while (true) {
            $end = $i < $length && $pattern[$i] === '{' ? self::closingBrace($pattern, $i) : -1;
            if ($end > 0 && ($end + 1 === $length || $pattern[$end + 1] === '/')) {
                $segment = self::param($pattern, substr($pattern, $i + 1, $end - $i - 1));
                self::addName($pattern, $segment->value, $names);
                $i = $end + 1;
            } else {
                $slash = strpos($pattern, '/', $i);
                $literal = $slash === false ? substr($pattern, $i) : substr($pattern, $i, $slash - $i);
                if (strpbrk($literal, '{}') !== false) {
                    [$segment, $i] = self::mixed($pattern, $i, $names);
                } else {
                    $segment = new Segment(SegmentKind::Literal, $literal);
                    $i += \strlen($literal);
                }
            }
            if ($segments !== [] && end($segments)->kind === SegmentKind::Rest) {
                throw new RouteDefinitionException(\sprintf('Route pattern "%s": a rest parameter ({name:.+} or {name:.*}) must be the last segment.', $pattern));
            }
            $segments[] = $segment;
            if ($i >= $length) {
                break;
            }
            ++$i; // the "/"
        }

        return new self($pattern, $segments, $names);
    }

    /** Identifies the paths this pattern matches, regardless of parameter names. */
    public function shape(): string
    {
        return implode("\0", array_map(static fn(Segment $s): string => $s->shape(), $this->segments));
    }

    public function isStatic(): bool
    {
        return $this->names === [];
    }

    /**
     * A segment of text and parameters, from offset $i up to the next "/" outside braces.
     *
     * @param list<string> $names
     *
     * @return array{Segment, int} the segment and the offset after it
     */
    private static function mixed(string $pattern, int $i, array &$names): array
    {
        $length = \strlen($pattern);
        $start = $i;
        $parts = [];
        $regex = '';
        while ($i < $length && $pattern[$i] !== '/') {
            if ($pattern[$i] === '{') {
                $end = self::closingBrace($pattern, $i);
                $param = self::param($pattern, substr($pattern, $i + 1, $end - $i - 1));
                if ($param->kind === SegmentKind::Rest) {
                    throw new RouteDefinitionException(\sprintf('Route pattern "%s": parameter "%s" shares its segment with text, so it cannot take the rest of the path (.+ or .*).', $pattern, $param->value));
                }
                if ($parts !== [] && end($parts)->kind === SegmentKind::Param) {
                    throw new RouteDefinitionException(\sprintf('Route pattern "%s": parameters "%s" and "%s" follow each other in one segment; put text between them.', $pattern, end($parts)->value, $param->value));
                }
                self::addName($pattern, $param->value, $names);
                $parts[] = $param;
                $regex .= '(?<p' . \count($parts) . '>' . ($param->source === null ? '.+' : str_replace('~', '\~', $param->source)) . ')';
                $i = $end + 1;
                continue;
            }
            $next = strcspn($pattern, '{}/', $i);
            if ($next === 0) {
                throw new RouteDefinitionException(\sprintf('Route pattern "%s": unmatched "}" at offset %d.', $pattern, $i));
            }
            $text = substr($pattern, $i, $next);
            $parts[] = new Segment(SegmentKind::Literal, $text);
            $regex .= preg_quote($text, '~');
            $i += $next;
        }

        return [new Segment(SegmentKind::Mixed, substr($pattern, $start, $i - $start), '~^' . $regex . '$~D', null, $parts), $i];
    }

    /** @param list<string> $names */
    private static function addName(string $pattern, string $name, array &$names): void
    {
        if (\in_array($name, $names, true)) {
            throw new RouteDefinitionException(\sprintf('Route pattern "%s" uses the parameter name "%s" twice; rename one.', $pattern, $name));
        }
        $names[] = $name;
    }

    private static function closingBrace(string $pattern, int $open): int
    {
        $depth = 0;
        $length = \strlen($pattern);
        for ($j = $open; $j < $length; ++$j) {
            $char = $pattern[$j];
            if ($char === '\\') {
                ++$j;
            } elseif ($char === '{') {
                ++$depth;
            } elseif ($char === '}' && --$depth === 0) {
                return $j;
            }
        }

        throw new RouteDefinitionException(\sprintf('Route pattern "%s": the "{" at offset %d is never closed.', $pattern, $open));
    }

    private static function param(string $pattern, string $inner): Segment
    {
        $colon = strpos($inner, ':');
        $name = $colon === false ? $inner : substr($inner, 0, $colon);
        $source = $colon === false ? null : substr($inner, $colon + 1);
        if (preg_match('/^[A-Za-z_][A-Za-z0-9_]*$/D', $name) !== 1) {
            throw new RouteDefinitionException(\sprintf('Route pattern "%s": parameter name "%s" must be a PHP identifier (letters, digits, "_").', $pattern, $name));
        }
        if ($source === null) {
            return new Segment(SegmentKind::Param, $name);
        }
        if ($source === '') {
            throw new RouteDefinitionException(\sprintf('Route pattern "%s": parameter "%s" has an empty constraint after ":"; remove the ":" or add a regex.', $pattern, $name));
        }
        if ($source === '.+' || $source === '.*') {
            return new Segment(SegmentKind::Rest, $name, null, $source);
        }
        $regex = '~^(?:' . str_replace('~', '\~', $source) . ')$~D';
        if (@preg_match($regex, '') === false) {
            throw new RouteDefinitionException(\sprintf('Route pattern "%s": the constraint "%s" of parameter "%s" is not a valid regex (%s).', $pattern, $source, $name, preg_last_error_msg()));
        }

        return new Segment(SegmentKind::Param, $name, $regex, $source);
    }
}
