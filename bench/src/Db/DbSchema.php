<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * The benchmark's tables and seed data: 100 users, 1,000 posts (10 per user) and a post_views
 * table that every request adds a row to. seed() drops and recreates everything, so each run
 * starts from the same data.
 */
final class DbSchema
{
    public const USERS = 100;
    public const POSTS = 1000;
    /** post_views rows present before the first request. */
    public const INITIAL_VIEWS = 1000;

    private const INITIAL_VIEWS_SQL = "INSERT INTO post_views (post_id, user_id, viewed_at)
        SELECT 1 + (i * 7) % 1000, 1 + (i * 13) % 100, now() - i * interval '1 minute'
        FROM generate_series(1, 1000) AS i";

    private const STATEMENTS = [
        'DROP TABLE IF EXISTS post_views, posts, users',
        'CREATE TABLE users (
            id serial PRIMARY KEY,
            name text NOT NULL,
            email text NOT NULL UNIQUE,
            created_at timestamptz NOT NULL DEFAULT now()
        )',
        'CREATE TABLE posts (
            id serial PRIMARY KEY,
            user_id int NOT NULL REFERENCES users (id),
            title text NOT NULL,
            body text NOT NULL,
            views_count int NOT NULL DEFAULT 0,
            created_at timestamptz NOT NULL DEFAULT now()
        )',
        'CREATE TABLE post_views (
            id bigserial PRIMARY KEY,
            post_id int NOT NULL REFERENCES posts (id),
            user_id int NOT NULL REFERENCES users (id),
            viewed_at timestamptz NOT NULL DEFAULT now()
        )',
        'CREATE INDEX posts_user_id_created_at ON posts (user_id, created_at DESC)',
        'CREATE INDEX posts_views_count ON posts (views_count DESC)',
        'CREATE INDEX post_views_post_id ON post_views (post_id)',
        "INSERT INTO users (name, email, created_at)
            SELECT 'User ' || i, 'user' || i || '@example.com', now() - i * interval '1 day'
            FROM generate_series(1, 100) AS i",
        "INSERT INTO posts (user_id, title, body, views_count, created_at)
            SELECT 1 + (i - 1) % 100, 'Post number ' || i, repeat('Lorem ipsum dolor sit amet. ', 10), (i * 37) % 500, now() - i * interval '1 hour'
            FROM generate_series(1, 1000) AS i",
        self::INITIAL_VIEWS_SQL,
        'ANALYZE',
    ];

    /**
     * Creates the database when it does not exist (connected to any other database of the server).
     */
    public static function createDatabase(\PDO $admin, string $database): void
    {
        if (preg_match('/^[a-z_][a-z0-9_]*$/', $database) !== 1) {
            throw new \InvalidArgumentException("Database name '{$database}' must be lower-case letters, digits and underscores.");
        }
        $exists = $admin->prepare('SELECT 1 FROM pg_database WHERE datname = ?');
        $exists->execute([$database]);
        if ($exists->fetchColumn() === false) {
            $admin->exec("CREATE DATABASE {$database}");
        }
    }

    /**
     * Drops and recreates the tables with the seed data.
     */
    public static function seed(\PDO $pdo): void
    {
        foreach (self::STATEMENTS as $statement) {
            $pdo->exec($statement);
        }
    }

    /**
     * Back to the seed state without dropping anything (servers keep their connections and
     * prepared statements): post_views to its initial rows, views_count to its initial values.
     */
    public static function reset(\PDO $pdo): void
    {
        $pdo->exec('TRUNCATE post_views RESTART IDENTITY');
        $pdo->exec(self::INITIAL_VIEWS_SQL);
        $pdo->exec('UPDATE posts SET views_count = (id * 37) % 500');
        $pdo->exec('VACUUM ANALYZE posts');
        $pdo->exec('ANALYZE post_views');
    }

    /**
     * @return array{users: int, posts: int, post_views: int}
     */
    public static function counts(\PDO $pdo): array
    {
        $count = static function (string $table) use ($pdo): int {
            $statement = $pdo->query("SELECT count(*) FROM {$table}");

            return $statement === false ? 0 : (int) $statement->fetchColumn();
        };

        return ['users' => $count('users'), 'posts' => $count('posts'), 'post_views' => $count('post_views')];
    }
}
