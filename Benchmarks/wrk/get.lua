-- Plain GETs of the URL given to wrk (JWKS, discovery, or nginx serving the same bytes).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
