<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/**
 * A parsed route pattern such as `/users/{id:\d+}/files/{path:.+}`. Parameters fill whole segments;
 * a parameter whose constraint is exactly `.+` or `.*` takes the rest of the path and must be last.
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
            if ($i < $length && $pattern[$i] === '{') {
                $end = self::closingBrace($pattern, $i);
                if ($end + 1 < $length && $pattern[$end + 1] !== '/') {
                    throw new RouteDefinitionException(\sprintf('Route pattern "%s": a parameter must fill a whole segment; put a "/" after "}" at offset %d.', $pattern, $end));
                }
                $segment = self::param($pattern, substr($pattern, $i + 1, $end - $i - 1));
                if (\in_array($segment->value, $names, true)) {
                    throw new RouteDefinitionException(\sprintf('Route pattern "%s" uses the parameter name "%s" twice; rename one.', $pattern, $segment->value));
                }
                $names[] = $segment->value;
                $i = $end + 1;
            } else {
                $slash = strpos($pattern, '/', $i);
                $literal = $slash === false ? substr($pattern, $i) : substr($pattern, $i, $slash - $i);
                if (strpbrk($literal, '{}') !== false) {
                    throw new RouteDefinitionException(\sprintf('Route pattern "%s": segment "%s" mixes text and a parameter; a parameter must fill a whole segment.', $pattern, $literal));
                }
                $segment = new Segment(SegmentKind::Literal, $literal);
                $i += \strlen($literal);
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
