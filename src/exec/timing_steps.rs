//! Steps 67-69 of hdparm's order: `-T`, `-F`, `-t` (and our `--bench`), in that order.

use super::steps::{flush_drive_cache, Ctx};

pub fn run(ctx: &mut Ctx) {
    let f = ctx.flags.clone();
    if f.time_cache {
        ctx_not_built(ctx, "-T");
    }
    if f.flush_drive_cache {
        flush_drive_cache(ctx);
    }
    if f.time_device {
        ctx_not_built(ctx, "-t");
    }
}

fn ctx_not_built(ctx: &mut Ctx, option: &str) {
    let message = format!("{}: {option} is not implemented in hdparm-rs yet", ctx.name);
    ctx.out.error(&crate::error::Error::not_applicable(message));
}
