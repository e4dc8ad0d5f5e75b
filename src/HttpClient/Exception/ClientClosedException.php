<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The client was closed: requests in flight fail with this, and so does every later request.
 */
final class ClientClosedException extends \RuntimeException implements HttpClientException {}
