<?php

declare(strict_types=1);

/*
 * The front controller nginx + php-fpm run in `make bench-http`: the demo app's two routes, written
 * the way a plain PHP script would (one request per execution, nothing kept between requests).
 *     GET /              200 text/plain "Hello, world!"
 *     GET /hello/{name}  200 application/json {"message":"Hello, {name}!"}
 */

$method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
$uri = $_SERVER['REQUEST_URI'] ?? '/';
$path = rawurldecode((string) parse_url(is_string($uri) ? $uri : '/', PHP_URL_PATH));

if ($method === 'GET' && $path === '/') {
    $body = 'Hello, world!';
    header('Content-Type: text/plain; charset=utf-8');
} elseif ($method === 'GET' && preg_match('#^/hello/([^/]+)$#', $path, $match) === 1) {
    $body = json_encode(['message' => "Hello, {$match[1]}!"], JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
    header('Content-Type: application/json');
} else {
    http_response_code(404);
    $body = 'Not Found';
    header('Content-Type: text/plain; charset=utf-8');
}
header('Content-Length: ' . strlen($body));
echo $body;
