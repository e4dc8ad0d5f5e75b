<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * A ClientOptions, RequestOptions or TlsOptions value out of range; the message names it.
 */
final class InvalidOptionsException extends \InvalidArgumentException implements HttpClientException {}
