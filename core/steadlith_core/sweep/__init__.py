"""`steadlith sweep`: parameter grids (`grid`) run over pairs of versions (`tasks`, from
git in `git`, diffs in `diffs`, other chunkers in `external`) in a process pool or on a
Dask cluster (`run`, `dask`), with the results and their formatting (`results`,
`format`).
"""
