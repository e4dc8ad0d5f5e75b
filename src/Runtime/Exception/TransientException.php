<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * A failure that may pass by itself: a server or a worker was unreachable, busy or too slow, a
 * pool had no connection to lend, a wait timed out. Retrying later may succeed; nothing about
 * the request itself was wrong. The HTTP layer answers these with 503 and `Retry-After`.
 */
interface TransientException extends \Throwable {}
