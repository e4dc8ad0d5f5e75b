<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * A failure of the network or of the server rather than of the request itself: the server could
 * not be reached, broke the connection, answered too slowly or answered something that is not
 * HTTP. The same request may succeed later. (The PSR-18 adapter maps these to
 * NetworkExceptionInterface.)
 */
interface NetworkFailure extends HttpClientException, TransientException {}
