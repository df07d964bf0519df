"""Human evaluation of dialogue models: significance tests, the Bradley–Terry leaderboard, Wiki F1
(pure functions), and the campaign results built from them."""
