<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * More redirects than RequestOptions::$maxRedirects were answered in a row (a loop, most likely).
 */
final class TooManyRedirectsException extends \RuntimeException implements HttpClientException {}
