<?php

declare(strict_types=1);

namespace Nexus\Worker\Topic;

/**
 * One message published to a topic, on its way from the publisher to the topic's room actor and
 * from there to the hub of every worker (registered for the links between workers by Topics).
 */
final readonly class TopicMessage
{
    public function __construct(
        public string $topic,
        public string $payload,
        public bool $binary = false,
    ) {}
}
