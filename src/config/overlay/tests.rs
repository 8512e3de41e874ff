//! The one list of fields, shown complete: every field of [`ModelConfig`]
//! is a key of [`Overlay`], is laid by [`Overlay::apply`] and is kept by
//! [`Overlay::then`].

use super::Overlay;
use crate::config::preset::lesson;
use crate::config::{
    Act, Attention, DType, Devices, Fault, Head, Mixture, Mlp, ModelConfig, NormKind, Norms,
    Placement, PosEmb, Positions, QkvFusion, RopeScaling, Vocab,
};
use clap::{Args, FromArgMatches};

/// A config whose every field differs from the lesson's. The literal names
/// every field, so a new field of [`ModelConfig`] must be added here too.
fn every_field_changed() -> ModelConfig {
    ModelConfig {
        preset: "lesson".into(),
        batch: 3,
        seq: 5,
        backward: true,
        decode: 2,
        d_model: 48,
        layers: 3,
        bias: false,
        parallel: true,
        encoder: true,
        attention: Attention {
            heads: 6,
            head_dim: Some(12),
            kv_heads: 2,
            qkv_bias: true,
            fused_qkv: QkvFusion::Grouped,
            window: Some(3),
            full_every: Some(2),
            query_scale: Some(7),
            softcap: Some(50.0),
        },
        mlp: Mlp {
            d_ff: 96,
            act: Act::Swiglu,
            bias: Some(true),
            fused_gate_up: true,
        },
        mixture: Some(Mixture {
            experts: 5,
            top_k: 3,
        }),
        norms: Norms {
            kind: NormKind::RmsNorm,
            placement: Placement::Post,
            bias: Some(false),
            final_norm: true,
            shared: true,
            embed: true,
            eps: 1e-6,
        },
        positions: Positions {
            kind: PosEmb::Rope,
            context: Some(8),
            offset: 2,
            rotary_dims: Some(4),
            rope_theta: 500.0,
            rope_scaling: Some(RopeScaling::Linear { factor: 2.0 }),
        },
        vocab: Vocab {
            size: Some(11),
            tied: false,
            token_types: Some(2),
            embed_scale: true,
            head: Head::Pooler,
            logit_softcap: Some(30.0),
        },
        dtype: DType::F64,
        seed: 9,
        fault: Some(Fault::NoCausalMask),
        devices: Devices {
            tp: 3,
            sp: true,
            pp: 3,
            micro_batches: 4,
            ep: 2,
            pad_vocab: true,
            device: 7,
        },
    }
}

/// `cfg` written as a model file and read back as an overlay: a field of
/// the config that the overlay lacks is refused as an unknown key.
fn as_overlay(cfg: &ModelConfig) -> Overlay {
    let text = toml::to_string(cfg).unwrap();
    Overlay::from_toml(&text, "every-field.toml").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_overlay_of_every_field_lays_every_field() {
    let want = every_field_changed();
    let base = toml::Value::try_from(lesson()).unwrap();
    let changed = toml::Value::try_from(&want).unwrap();
    for (key, value) in changed.as_table().unwrap() {
        if key != "preset" {
            assert_ne!(
                base.get(key),
                Some(value),
                "{key} must differ to show it is laid"
            );
        }
    }
    let mut got = lesson();
    as_overlay(&want).apply(&mut got);
    assert_eq!(got, want);
}

#[test]
fn the_name_is_laid_on_the_preset_and_vocab_0_removes_the_vocabulary() {
    let mut cfg = every_field_changed();
    let o = Overlay {
        name: Some("llama (config.json)".into()),
        vocab: Some(0),
        ..Overlay::default()
    };
    o.apply(&mut cfg);
    assert_eq!(
        (cfg.preset.as_str(), cfg.vocab.size),
        ("llama (config.json)", None)
    );
}

#[test]
fn then_keeps_every_field_of_either_side() {
    let full = Overlay {
        name: Some("named".into()),
        ..as_overlay(&every_field_changed())
    };
    assert!(full.preset.is_some() && full.fault.is_some());
    assert_eq!(Overlay::default().then(&full), full);
    assert_eq!(full.clone().then(&Overlay::default()), full);
    let lesson = as_overlay(&lesson());
    assert_eq!(lesson.then(&full), full);
}

#[test]
fn every_flag_sets_its_field() {
    let cmd = Overlay::augment_args(clap::Command::new("t"));
    let args = [
        "t",
        "--batch",
        "3",
        "--seq",
        "5",
        "--d-model",
        "48",
        "--heads",
        "6",
        "--kv-heads",
        "2",
        "--d-ff",
        "96",
        "--layers",
        "3",
        "--act",
        "swiglu",
        "--norm",
        "rmsnorm",
        "--placement",
        "post",
        "--bias",
        "--final-norm",
        "--vocab",
        "0",
        "--context",
        "8",
        "--tied",
        "--dtype",
        "f64",
        "--seed",
        "9",
        "--fault",
        "no-causal-mask",
        "--tp",
        "3",
        "--sp",
        "--pp",
        "3",
        "--micro-batches",
        "4",
        "--ep",
        "2",
        "--pad-vocab",
        "--device",
        "7",
    ];
    let m = cmd.try_get_matches_from(args).unwrap();
    let got = Overlay::from_arg_matches(&m).unwrap();
    let want = Overlay {
        batch: Some(3),
        seq: Some(5),
        d_model: Some(48),
        heads: Some(6),
        kv_heads: Some(2),
        d_ff: Some(96),
        layers: Some(3),
        act: Some(Act::Swiglu),
        norm: Some(NormKind::RmsNorm),
        placement: Some(Placement::Post),
        bias: Some(true),
        final_norm: Some(true),
        vocab: Some(0),
        context: Some(8),
        tied: Some(true),
        dtype: Some(DType::F64),
        seed: Some(9),
        fault: Some(Fault::NoCausalMask),
        tp: Some(3),
        sp: Some(true),
        pp: Some(3),
        micro_batches: Some(4),
        ep: Some(2),
        pad_vocab: Some(true),
        device: Some(7),
        ..Overlay::default()
    };
    assert_eq!(got, want);
    let none = Overlay::augment_args(clap::Command::new("t")).get_matches_from(["t"]);
    assert_eq!(
        Overlay::from_arg_matches(&none).unwrap(),
        Overlay::default()
    );
}
