<?php

declare(strict_types=1);

namespace Nexus\Worker\Topic;

use Nexus\Worker\Exception\WorkerException;

/**
 * A topic name that cannot be used: give 1 to Topics::MAX_TOPIC_LENGTH bytes, without '/', not
 * starting with '$' (a topic is the name of its room actor).
 */
final class InvalidTopicException extends \InvalidArgumentException implements WorkerException {}
