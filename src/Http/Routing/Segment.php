<?php

declare(strict_types=1);

namespace Nexus\Http\Routing;

/** One "/"-separated part of a route pattern. */
final readonly class Segment
{
    /**
     * @param string $value the literal text, or the parameter name
     * @param string|null $regex the compiled, anchored constraint; null for `{name}`, `.+` and `.*`
     * @param string|null $source the constraint as written, e.g. `\d+`
     * @param list<Segment> $parts for Mixed: its literal texts and parameters, in order (the regex
     *                             has a named group per parameter)
     */
    public function __construct(
        public SegmentKind $kind,
        public string $value,
        public ?string $regex = null,
        public ?string $source = null,
        public array $parts = [],
    ) {}

    /** Identifies what the segment matches, regardless of the parameter's name. */
    public function shape(): string
    {
        return match ($this->kind) {
            SegmentKind::Literal => 'L' . $this->value,
            SegmentKind::Param => 'P' . ($this->source ?? ''),
            SegmentKind::Rest => 'R' . ($this->source ?? ''),
            SegmentKind::Mixed => 'M' . implode("\1", array_map(static fn(Segment $part): string => $part->shape(), $this->parts)),
        };
    }
}
