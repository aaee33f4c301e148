//! The signing keys `/criteria` publishes, as the settings read them ([`crate::settings::keys`]).

pub use crate::settings::keys::KeyPublication;
