<?php

declare(strict_types=1);

namespace Nexus\Redis\Internal;

use Nexus\Runtime\Deferred;

/**
 * @internal Collects the replies of one pipeline() call; it fills one slot per queued command.
 */
final class PipelineReplies
{
    /** @var list<mixed> */
    private array $replies = [];

    /**
     * @param Deferred<list<mixed>> $deferred
     */
    public function __construct(
        private readonly Deferred $deferred,
        private int $remaining,
    ) {}

    /**
     * Returns whether this was the pipeline's last reply.
     */
    public function add(mixed $reply): bool
    {
        $this->replies[] = $reply;
        if (--$this->remaining === 0) {
            $this->deferred->resolve($this->replies);

            return true;
        }

        return false;
    }

    public function fail(\Throwable $error): void
    {
        $this->deferred->tryReject($error);
    }
}
