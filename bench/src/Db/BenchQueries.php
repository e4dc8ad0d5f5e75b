<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * The work of one benchmark request: the same 10 queries for both servers, with $1-style
 * parameters (PostgreSQL's own; toPdo() rewrites them for PDO).
 */
final class BenchQueries
{
    public const SQL = [
        'user' => 'SELECT id, name, email, created_at FROM users WHERE id = $1',
        'posts' => 'SELECT id, title, views_count, created_at FROM posts WHERE user_id = $1 ORDER BY created_at DESC LIMIT 10',
        'insert_view' => 'INSERT INTO post_views (post_id, user_id) VALUES ($1, $2)',
        'update_views' => 'UPDATE posts SET views_count = views_count + 1 WHERE id = $1',
        'post_stats' => 'SELECT count(*) AS total_views, max(viewed_at) AS last_view FROM post_views WHERE post_id = $1',
        'top_posts' => 'SELECT id, title, views_count FROM posts ORDER BY views_count DESC LIMIT 5',
        'top_authors' => 'SELECT user_id, count(*) AS posts FROM posts GROUP BY user_id ORDER BY posts DESC, user_id LIMIT 5',
        'other_user' => 'SELECT id, name, email, created_at FROM users WHERE id = $1',
        'other_posts' => 'SELECT id, title, views_count FROM posts WHERE user_id = $1 ORDER BY created_at DESC LIMIT 5',
        'recent_views' => 'SELECT id, post_id, user_id, viewed_at FROM post_views ORDER BY id DESC LIMIT 10',
    ];

    /**
     * Runs the 10 queries one after the other and returns what the response shows.
     *
     * @param \Closure(string, list<int>): list<array<string, mixed>> $query runs one statement, returns its rows
     *
     * @return array<string, mixed>
     */
    public static function run(\Closure $query, ?int $userId = null, ?int $otherUserId = null, ?int $postId = null): array
    {
        $userId ??= mt_rand(1, DbSchema::USERS);
        $otherUserId ??= mt_rand(1, DbSchema::USERS);
        $postId ??= mt_rand(1, DbSchema::POSTS);
        $user = $query(self::SQL['user'], [$userId]);
        $posts = $query(self::SQL['posts'], [$userId]);
        $query(self::SQL['insert_view'], [$postId, $userId]);
        $query(self::SQL['update_views'], [$postId]);
        $stats = $query(self::SQL['post_stats'], [$postId]);
        $topPosts = $query(self::SQL['top_posts'], []);
        $topAuthors = $query(self::SQL['top_authors'], []);
        $other = $query(self::SQL['other_user'], [$otherUserId]);
        $otherPosts = $query(self::SQL['other_posts'], [$otherUserId]);
        $recent = $query(self::SQL['recent_views'], []);

        return [
            'user' => $user[0] ?? null,
            'posts' => $posts,
            'viewed_post' => $postId,
            'post_stats' => $stats[0] ?? null,
            'top_posts' => $topPosts,
            'top_authors' => $topAuthors,
            'other_user' => $other[0] ?? null,
            'other_posts' => $otherPosts,
            'recent_views' => $recent,
        ];
    }

    /**
     * The statement with $1, $2, ... replaced by ? (each parameter is used once, in order).
     */
    public static function toPdo(string $sql): string
    {
        return (string) preg_replace('/\$\d+/', '?', $sql);
    }

    /**
     * A query runner over a PDO connection: one round trip per statement (emulated prepares).
     *
     * @return \Closure(string, list<int>): list<array<string, mixed>>
     */
    public static function pdoRunner(\PDO $pdo): \Closure
    {
        return static function (string $sql, array $params) use ($pdo): array {
            $statement = $pdo->prepare(self::toPdo($sql));
            $statement->execute($params);
            /** @var list<array<string, mixed>> $rows */
            $rows = $statement->columnCount() > 0 ? $statement->fetchAll(\PDO::FETCH_ASSOC) : [];

            return $rows;
        };
    }

    public static function pdo(string $host, int $port, string $database, string $user, bool $persistent): \PDO
    {
        return new \PDO("pgsql:host={$host};port={$port};dbname={$database};user={$user}", null, null, [
            \PDO::ATTR_ERRMODE => \PDO::ERRMODE_EXCEPTION,
            \PDO::ATTR_EMULATE_PREPARES => true,
            \PDO::ATTR_PERSISTENT => $persistent,
            \PDO::ATTR_TIMEOUT => 5,
        ]);
    }
}
